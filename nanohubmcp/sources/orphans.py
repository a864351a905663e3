"""Stopping the processes a killed process's runs left running (Linux): shared by the Rappture and Sim2L sources.

A run records the process group its program (a Rappture program, a Sim2L's kernel) leads
(:func:`record_group`: ``<run>.group`` beside the run directory, removed with it). When a process is killed
with SIGKILL its runs' programs are not stopped: they are reparented and run on, with no time limit. Before
a sweep removes the dead process's folder, :func:`stop_orphans` finds them in ``/proc`` and kills them with
SIGKILL: a process qualifies only when its process group is the one recorded for a run *and* it is that
run's — its working directory is inside the run's directory, or its environment names the run (``mark``, the
variable its program was started with, inherited by what it starts) — so a pid or group id reused by an
unrelated process since does not qualify. A run with no note yet (its process killed between starting the
program and noting its group) takes the group of the session leader working in it whose environment names
the run: a program is started leading a new session of its own with that variable set — a user's shell that
went into the folder is neither.

A helper a program starts in a session of its own (``setsid``, ``start_new_session=True``) belongs to no
recorded group, but it inherits the mark: :func:`stop_marked` kills the processes of this user whose
environment names a run (or any run of a folder), so a run's end (:meth:`.run_folders.RunFolders.remove`: its
time limit, a cancel, a stop), a process's exit and the sweep end such helpers too. The scan reads
``/proc/<pid>/environ`` of this user's processes only, at most :data:`SCAN_LIMIT` of them; at a run's end (and a
process's exit) only of those started since the run began (or the process made its folder of runs:
:func:`clock_ticks`, against ``/proc/<pid>/stat``'s start time), as a helper carrying the run's mark was: the
user's shells, kernels and servers are skipped unread, so a run's end costs a read of each process's ``stat``, not
of its environment (review r28 #4: 11 ms a run with 127 processes, 90 to 130 ms with 1,000, before). A process
started before the run cannot carry its mark: the environment ``/proc`` shows is the one it was started with (or
last ``exec``'d with; a process that ``exec``s with a mark it was not started with is not looked for). A process
being loaded as the scan reads it (a helper ``Popen``'d a moment before the run ended: ``/proc`` shows its
environment a few ms after ``Popen`` returned) is read again until its environment is there
(:data:`LOADING_SECONDS` at most); before, it was read empty and ran on (about 1 such helper in 100).

This module does not decide which folders are a dead process's (:mod:`.run_folders` does). Off Linux (no
``/proc/<pid>/cwd``) nothing is found: such programs run until they end by themselves.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["GROUP_SUFFIX", "LOADING_SECONDS", "SCAN_LIMIT", "clock_ticks", "record_group", "stop_marked",
           "stop_orphans"]

GROUP_SUFFIX = ".group"
"""The file beside a run directory holding its program's process group id (decimal text)."""

SCAN_LIMIT = 100_000
"""The most processes :func:`stop_marked` looks at in one scan of ``/proc``."""

LOADING_SECONDS = 0.5
"""How long :func:`stop_marked` waits, at most, for the environment of a process it found being loaded (started a
moment before the scan: ``/proc`` shows its environment a few ms after its ``execve`` began) to be in place, and
reads it again. Only a process being loaded then costs a wait (of a few ms)."""

_PROC = Path("/proc")
_KERNEL_THREAD = 0x00200000  # PF_KTHREAD in /proc/<pid>/stat's flags (field 9)
_WAIT = 2.0  # seconds to let the killed processes go before their folder is removed
_BOOT_CLOCK = getattr(time, "CLOCK_BOOTTIME", None)  # (Linux: the clock /proc/<pid>/stat's start times count)
_TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK") if _BOOT_CLOCK is not None else 0


def clock_ticks() -> int | None:
    """Now, as ``/proc/<pid>/stat`` counts a process's start (field 22: clock ticks since boot), less a tick
    (no rounding can then make a process started later look earlier); None off Linux. What
    :func:`stop_marked` is given as ``since``, read as a run begins."""
    if _BOOT_CLOCK is None:
        return None
    return time.clock_gettime_ns(_BOOT_CLOCK) // _TICK_NS - 1


def record_group(run: Path, pgid: int) -> None:
    """Note that the program of the run in directory ``run`` leads process group ``pgid`` (best effort:
    a note that cannot be written only leaves that program to run on if this process is killed)."""
    with contextlib.suppress(OSError):
        note = os.open(run.parent / (run.name + GROUP_SUFFIX), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(note, "w", encoding="ascii") as stream:
            stream.write(str(pgid))


def stop_orphans(parent: Path, mark: str) -> list[int]:
    """SIGKILL the processes still running in the runs of ``parent`` (a dead process's folder of run
    directories) in their recorded process group, ``mark`` the environment variable naming a run its
    programs were started with; returns their pids, once gone (or after 2 s)."""
    groups = {}
    for note in parent.glob("*" + GROUP_SUFFIX):
        run = note.with_name(note.name[: -len(GROUP_SUFFIX)])
        with contextlib.suppress(OSError, ValueError):
            if run.is_dir():
                groups[int(note.read_text(encoding="ascii"))] = run.resolve()
    killed = stop_marked(mark, parent, wait=False)  # (helpers in sessions of their own: in no noted group)
    noted = set(groups.values())
    try:
        unnoted = [run.resolve() for run in parent.iterdir() if run.is_dir() and run.resolve() not in noted]
    except OSError:
        unnoted = []
    if not (groups or unnoted) or not _PROC.is_dir():
        _wait_gone(killed)
        return killed
    pids = _pids()
    if unnoted:
        groups.update(_leaders(pids, unnoted, mark))
    for pid in pids:
        if _belongs(pid, groups, mark):  # checked just before the kill: a pid is reused only once it is free
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    _wait_gone(killed)
    return killed


def stop_marked(mark: str, within: Path, *, wait: bool = True, since: int | None = None) -> list[int]:
    """SIGKILL every process of this user (never this process) whose environment variable ``mark`` names
    the run directory ``within`` or one inside it (``within`` a process's folder of runs: any of its runs);
    returns their pids, once gone (at most 2 s) when ``wait``. Linux only (``/proc``); elsewhere none.

    ``since`` (:func:`clock_ticks` read as the run began, or as the folder was made): the processes started
    before it are skipped unread (they cannot carry a mark naming that run), so only those started since have
    their environment read; None: every process of this user is looked at (the sweep of a dead process's
    folder). Looks at no more than :data:`SCAN_LIMIT` processes; another user's are skipped unread. One being
    loaded (its environment not in place yet) is read again until it is, :data:`LOADING_SECONDS` at most."""
    if not _PROC.is_dir():
        return []
    root = str(within.resolve())
    prefix, exact = f"{mark}={root}/".encode(), f"{mark}={root}".encode()
    me, uid = os.getpid(), os.getuid()
    killed: list[int] = []
    loading: dict[int, bool] = {}  # pid -> whether its arguments were not in place yet either

    def kill_if_marked(pid: int, environ: bytes) -> None:
        if any(name == exact or name.startswith(prefix) for name in environ.split(b"\0")):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    for pid in _pids()[:SCAN_LIMIT]:
        if pid == me or (since is not None and (started := _started(pid)) is not None and started < since):
            continue
        entry = _PROC / str(pid)
        try:
            if entry.stat().st_uid != uid:
                continue
            environ = entry.joinpath("environ").read_bytes()
        except OSError:  # gone, or not readable
            continue
        being_loaded = _loading(pid) if not environ else False
        if being_loaded is False:
            kill_if_marked(pid, environ)
        else:
            loading[pid] = being_loaded is True
    _look_again(loading, kill_if_marked)
    if wait:
        _wait_gone(killed)
    return killed


def _loading(pid: int) -> bool | None:
    """Whether process ``pid``, whose environment read empty, may be being loaded (its ``execve`` past the point
    where its parent's ``Popen`` returned, its new environment not in place yet): True when its arguments are not
    in place either (for a few ms), None when they are (the kernel writes them just before the environment: one
    more look tells it from a program started with an empty environment), False for a zombie or a kernel thread
    (which have neither) or a process gone."""
    try:
        line = (_PROC / str(pid) / "stat").read_bytes()
        arguments = (_PROC / str(pid) / "cmdline").read_bytes()
        fields = line[line.rindex(b")") + 2 :].split(b" ", 8)
        if fields[0] in (b"Z", b"X") or int(fields[6]) & _KERNEL_THREAD:
            return False
    except (OSError, ValueError, IndexError):
        return False
    return None if arguments else True


def _look_again(loading: dict[int, bool], found: Callable[[int, bytes], None]) -> None:
    """Read again the environment of the processes of ``loading`` (being loaded as the scan read them: their
    environment was not in place yet) until it is, or they are gone, :data:`LOADING_SECONDS` at most (once only
    for those whose arguments were in place: ``False``); each environment read is handed to ``found`` with its
    pid. (Before, a helper ``Popen``'d a few ms before the run ended was read empty, and ran on.)"""
    deadline = time.monotonic() + LOADING_SECONDS
    while loading and time.monotonic() < deadline:
        time.sleep(0.001)
        for pid, patient in list(loading.items()):
            try:
                environ = (_PROC / str(pid) / "environ").read_bytes()
            except OSError:  # gone
                environ = b""
            if environ:
                found(pid, environ)
            if environ or not patient or not _running(pid):  # (a zombie: ended before it was in place)
                del loading[pid]


def _started(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot (``/proc/<pid>/stat``'s field 22); None when it
    cannot be told (gone, or a line not read as expected: then the process is looked at, not skipped)."""
    try:
        handle = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        line = os.read(handle, 1024)
    except OSError:
        return None
    finally:
        os.close(handle)
    try:  # after the command's ")" (which may hold spaces and parentheses): field 3 on
        return int(line[line.rindex(b")") + 2 :].split(b" ", 20)[19])
    except (ValueError, IndexError):
        return None


def _wait_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + _WAIT
    while any(map(_running, pids)) and time.monotonic() < deadline:
        time.sleep(0.01)


def _leaders(pids: list[int], runs: list[Path], mark: str) -> dict[int, Path]:
    """The groups of the runs in ``runs`` that have no note (their process was killed between starting the
    program and noting its group): a program is started leading a new session, with ``mark`` naming its
    run, so a session leader working in such a run with that mark is its program, and its group is the
    run's."""
    found = {}
    for pid in pids:
        if pid == os.getpid():
            continue
        try:
            if os.getsid(pid) != pid:
                continue
            run = _within(Path(os.readlink(_PROC / str(pid) / "cwd")), runs)
            if run is None:
                continue
            if _marked(pid, mark, run):
                found[pid] = run
        except OSError:  # gone, or another user's
            continue
    return found


def _within(cwd: Path, runs: list[Path]) -> Path | None:
    return next((run for run in runs if cwd == run or run in cwd.parents), None)


def _marked(pid: int, mark: str, run: Path) -> bool:
    """Whether process ``pid`` was started with ``mark`` naming ``run`` (raises OSError: gone, another user's)."""
    return f"{mark}={run}".encode() in (_PROC / str(pid) / "environ").read_bytes().split(b"\0")


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir(_PROC) if name.isdigit()]
    except OSError:
        return []


def _belongs(pid: int, groups: dict[int, Path], mark: str) -> bool:
    if pid == os.getpid():
        return False
    try:
        run = groups.get(os.getpgid(pid))
        if run is None:
            return False
        return _within(Path(os.readlink(_PROC / str(pid) / "cwd")), [run]) is not None or _marked(pid, mark, run)
    except OSError:  # gone, or another user's
        return False


def _running(pid: int) -> bool:
    """Not gone and not a zombie (killed, not yet reaped by its new parent)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :][:1] != "Z"
