"""Stopping the programs a killed process's Rappture runs left running (Linux).

A run records the process group its program leads (:func:`record_group`: ``<run>.group`` beside the
run directory, removed with it). When a process is killed with SIGKILL its runs' programs are not
stopped: they are reparented and run on, with no time limit. Before the next server's sweep removes
the dead process's folder, :func:`stop_orphans` finds them in ``/proc`` and kills them with SIGKILL:
a process qualifies only when both its process group is the one recorded for a run *and* its
working directory is inside that run's directory — a pid or group id reused by an unrelated
process since does not qualify (its working directory is elsewhere). A run with no note yet (its
process killed between starting the program and noting its group) takes the group of the session
leader working in it whose environment names the run (:data:`RUN_MARK`): a program is started leading a
new session of its own with that variable set — a user's shell that went into the folder is neither.

Off Linux (no ``/proc/<pid>/cwd``) nothing is found: such programs run until they end by themselves.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

__all__ = ["GROUP_SUFFIX", "RUN_MARK", "record_group", "stop_orphans"]

RUN_MARK = "NANOHUBMCP_RAPPTURE_RUN"
"""The environment variable a run's program is started with: its run directory (resolved), so that a program
whose group was never noted is still told from a process that merely works in its folder."""
GROUP_SUFFIX = ".group"
"""The file beside a run directory holding its program's process group id (decimal text)."""

_PROC = Path("/proc")
_WAIT = 2.0  # seconds to let the killed processes go before their folder is removed


def record_group(run: Path, pgid: int) -> None:
    """Note that the program of the run in directory ``run`` leads process group ``pgid`` (best effort:
    a note that cannot be written only leaves that program to run on if this process is killed)."""
    with contextlib.suppress(OSError):
        (run.parent / (run.name + GROUP_SUFFIX)).write_text(str(pgid), encoding="ascii")


def stop_orphans(parent: Path) -> list[int]:
    """SIGKILL the processes still running in the runs of ``parent`` (a dead process's folder of run
    directories) in their recorded process group; returns their pids, once gone (or after 2 s)."""
    groups = {}
    for note in parent.glob("*" + GROUP_SUFFIX):
        run = note.with_name(note.name[: -len(GROUP_SUFFIX)])
        with contextlib.suppress(OSError, ValueError):
            if run.is_dir():
                groups[int(note.read_text(encoding="ascii"))] = run.resolve()
    noted = set(groups.values())
    unnoted = [run.resolve() for run in parent.glob("rappture-*") if run.is_dir() and run.resolve() not in noted]
    if not (groups or unnoted) or not _PROC.is_dir():
        return []
    pids = _pids()
    if unnoted:
        groups.update(_leaders(pids, unnoted))
    killed = []
    for pid in pids:
        if _belongs(pid, groups):  # checked just before the kill: a pid is reused only once it is free
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    deadline = time.monotonic() + _WAIT
    while any(map(_running, killed)) and time.monotonic() < deadline:
        time.sleep(0.01)
    return killed


def _leaders(pids: list[int], runs: list[Path]) -> dict[int, Path]:
    """The groups of the runs in ``runs`` that have no note (their process was killed between starting the
    program and noting its group): a program is started leading a new session, with :data:`RUN_MARK` naming
    its run, so a session leader working in such a run with that mark is its program, and its group is the
    run's."""
    found = {}
    for pid in pids:
        if pid == os.getpid():
            continue
        try:
            if os.getsid(pid) != pid:
                continue
            cwd = Path(os.readlink(_PROC / str(pid) / "cwd"))
            run = next((run for run in runs if cwd == run or run in cwd.parents), None)
            if run is None:
                continue
            environ = (_PROC / str(pid) / "environ").read_bytes().split(b"\0")
        except OSError:  # gone, or another user's
            continue
        if f"{RUN_MARK}={run}".encode() in environ:
            found[pid] = run
    return found


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir(_PROC) if name.isdigit()]
    except OSError:
        return []


def _belongs(pid: int, groups: dict[int, Path]) -> bool:
    if pid == os.getpid():
        return False
    try:
        run = groups.get(os.getpgid(pid))
        if run is None:
            return False
        cwd = Path(os.readlink(_PROC / str(pid) / "cwd"))
    except OSError:  # gone, or another user's
        return False
    return cwd == run or run in cwd.parents


def _running(pid: int) -> bool:
    """Not gone and not a zombie (killed, not yet reaped by its new parent)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :][:1] != "Z"
