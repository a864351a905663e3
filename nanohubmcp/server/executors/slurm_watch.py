"""Where each followed Slurm job is: one ``squeue`` for all of them per look, ``sacct`` for the rest.

One :class:`SlurmWatch` per process (:func:`watcher`) looks every ``poll_interval`` seconds,
in a thread of its own, while it follows any job: ``squeue --states=all`` lists this user's jobs
that Slurm still holds in memory (running, queued, and those that ended in the last
``MinJobAge`` seconds) with their state, the scheduler's reason and the node; a followed job
it no longer lists (ended long ago, e.g. while no server ran) is asked of the accounting
database with ``sacct`` (which needs ``slurmdbd``).

A look ``squeue`` or ``sacct`` could not make (the controller or the accounting database not answering: the
command failed, or gave no answer in 60 s) changes no job's state: a job is taken for ended (``VANISHED``) only
when both answered without listing it. What the last look could not ask is :attr:`SlurmWatch.unanswered`, which
the jobs' status messages say (:func:`.slurm_announce.announce_silence`). What a Slurm command that failed said,
and whether that is the controller not answering (:func:`unanswered`, :func:`controller_silent`), is read here too.
"""

from __future__ import annotations

import contextlib
import getpass
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

QUEUED = "queued"
RUNNING = "running"
ENDED = "ended"
_QUEUED_STATES = {"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "SUSPENDED", "CONFIGURING"}
_RUNNING_STATES = {"RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING", "RESIZING"}
SACCT_AFTER_SECONDS = 5.0
"""A job missing from squeue this long (after it was submitted) is asked of sacct."""
VANISHED_AFTER_SECONDS = 60.0
"""A job neither squeue nor sacct has listed for this long is reported ``VANISHED`` (ended, no state)."""
VANISHED = "VANISHED"


@dataclass(frozen=True)
class SlurmState:
    """One job's state as Slurm names it (``PENDING``, ``RUNNING``, ``TIMEOUT``...), the
    scheduler's reason while queued, the node(s), and the exit code once ended."""

    state: str
    reason: str
    node: str
    exit_code: str = ""

    @property
    def kind(self) -> str:
        """``queued``, ``running`` or ``ended``."""
        if self.state in _QUEUED_STATES:
            return QUEUED
        if self.state in _RUNNING_STATES:
            return RUNNING
        return ENDED


class SlurmWatch:
    """The shared poller (see the module docstring); thread-safe."""

    def __init__(self, poll_interval: float = 1.0) -> None:
        self.poll_interval = poll_interval
        self._jobs: dict[str, float] = {}  # Slurm job id -> when we started following it
        self._states: dict[str, SlurmState] = {}
        self._unseen: dict[str, float] = {}  # Slurm job id -> since when neither squeue nor sacct lists it
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self.unanswered = ""
        """What the last look could not ask, in Slurm's words (``squeue: slurm_load_jobs error: Unable to contact
        slurm controller (connect failure)``); "" when it was answered."""

    def add(self, slurm_id: str) -> None:
        """Follow ``slurm_id`` (a look follows at once)."""
        with self._lock:
            self._jobs.setdefault(slurm_id, time.monotonic())
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="nanohubmcp-slurm-watch", daemon=True)
                self._thread.start()
        self._wake.set()

    def discard(self, slurm_id: str) -> None:
        """Stop following ``slurm_id``."""
        with self._lock:
            self._jobs.pop(slurm_id, None)
            self._states.pop(slurm_id, None)
            self._unseen.pop(slurm_id, None)

    def get(self, slurm_id: str) -> SlurmState | None:
        """The last state seen of ``slurm_id`` (None before the first look)."""
        with self._lock:
            return self._states.get(slurm_id)

    def cancel(self, slurm_id: str) -> str:
        """``scancel`` the job and look at once: what :func:`scancel` answered ("" when Slurm took it)."""
        said = scancel(slurm_id)
        self._wake.set()
        return said

    # -- the looks ----------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._lock:
                followed = dict(self._jobs)
                if not followed:
                    self._thread = None
                    return
            try:
                self._look(followed)
            except (OSError, subprocess.SubprocessError) as exc:  # tried again at the next look
                self.unanswered = unanswered(exc)
            self._wake.wait(self.poll_interval)
            self._wake.clear()

    def _look(self, followed: dict[str, float]) -> None:
        listed = squeue()
        now = time.monotonic()
        missing = [jid for jid, since in followed.items() if jid not in listed and now - since > SACCT_AFTER_SECONDS]
        asked = ""
        if missing:
            try:
                listed.update(sacct(missing))
            except (OSError, subprocess.SubprocessError) as exc:  # those jobs' states stay as last seen
                asked = unanswered(exc)
        with self._lock:
            self.unanswered = asked
            for jid in followed:
                if jid in listed:
                    self._unseen.pop(jid, None)
                    if jid in self._jobs:
                        self._states[jid] = listed[jid]
                elif jid in missing and not asked and now - self._unseen.setdefault(jid, now) > VANISHED_AFTER_SECONDS:
                    self._states[jid] = SlurmState(VANISHED, "", "")  # e.g. ended long ago, no accounting


def squeue(slurm_id: str | None = None) -> dict[str, SlurmState]:
    """This user's jobs Slurm holds in memory (or job ``slurm_id`` only): id -> state (with
    reason and node).

    Raises:
        subprocess.CalledProcessError: squeue failed (the controller did not answer), but for a job id it does not
            know (``Invalid job id``: not listed).
        subprocess.TimeoutExpired, OSError: no answer in 60 s; no squeue here.
    """
    which = ["-j", slurm_id] if slurm_id else ["-u", getpass.getuser()]
    done = subprocess.run(
        ["squeue", "-h", "--states=all", *which, "-o", "%i|%T|%r|%N"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode and not (slurm_id and "Invalid job id" in done.stderr):
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
    found: dict[str, SlurmState] = {}
    for line in done.stdout.splitlines():
        parts = line.split("|")
        if len(parts) == 4:
            reason = "" if parts[2] in ("None", "(null)") else parts[2]
            found[parts[0].strip()] = SlurmState(parts[1].strip(), reason, parts[3].strip())
    return found


CONTROLLER_SILENT = ("Unable to contact slurm controller", "Socket timed out on send/recv operation")
"""What a Slurm command says when the controller (``slurmctld``) did not answer it: down, restarting, or too busy.
Not a judgement of the job: the same call made later may well be accepted."""


def controller_silent(said: str) -> bool:
    """Whether a Slurm command's error ``said`` is the controller not answering (:data:`CONTROLLER_SILENT`)."""
    return any(words.lower() in said.lower() for words in CONTROLLER_SILENT)


def last_lines(text: str, count: int = 3) -> str:
    """The last ``count`` non-blank lines of ``text``, on one line (a command's error)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[-count:]) or text


def scancel(slurm_id: str) -> str:
    """``scancel`` job ``slurm_id``: "" when Slurm took it (or refused it for a job already ended: nothing to
    do), else, when the controller did not answer, what scancel said (``scancel: ...``)."""
    try:
        done = subprocess.run(["scancel", slurm_id], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return unanswered(exc)
    if done.returncode and controller_silent(done.stderr):
        return unanswered(subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr))
    return ""


LATE_RESULT_SECONDS = 900.0
"""How long a cancelled job is looked at for its end, to remove the result it may still write (and to run its
``scancel`` again, when the controller did not answer it)."""


def drop_when_ended(result: Path, slurm_id: str, *, ended: bool, cancel_again: bool = False) -> None:
    """Remove ``result`` (a cancelled job's pickled value, written after its end was stored) once
    Slurm says the job ended, its processes gone: now when ``ended``, else from a thread of its own
    that looks every few seconds (for at most :data:`LATE_RESULT_SECONDS`). A running job's file is
    never touched. ``cancel_again``: the job's ``scancel`` was not answered, so the thread runs it again at each
    look until the controller takes it (``scancel`` is idempotent, unlike ``sbatch``)."""
    if ended:
        result.unlink(missing_ok=True)
        return

    def wait() -> None:
        again = cancel_again
        deadline = time.monotonic() + LATE_RESULT_SECONDS
        while time.monotonic() < deadline:
            if again:
                again = bool(scancel(slurm_id))
            state = look_once(slurm_id)
            if state is not None and state.kind == ENDED:
                result.unlink(missing_ok=True)
                return
            time.sleep(2.0)

    threading.Thread(target=wait, name=f"slurm-{slurm_id}-late-result", daemon=True).start()


CANCEL_LOOK_SECONDS = 10.0
"""After ``scancel``, how long Slurm is looked at for the job's end (its state in the task's metadata)."""
_CANCEL_POLL_SECONDS = 0.25


def cancel_and_look(watch: SlurmWatch, slurm_id: str, result: Path) -> tuple[SlurmState | None, str]:
    """``scancel`` job ``slurm_id`` (:meth:`SlurmWatch.cancel`) and where Slurm has it once that took effect: looked
    at until it ended, for at most :data:`CANCEL_LOOK_SECONDS` (None when Slurm cannot say), with what scancel
    said when the controller did not answer it ("" else). ``result``, the job's result file, is removed once the
    job ended (:func:`drop_when_ended`: the job may write it on its way out, after its end was stored); an
    unanswered scancel is run again there, not looked after here."""
    said = watch.cancel(slurm_id)
    state = None
    deadline = time.monotonic() + CANCEL_LOOK_SECONDS
    while not said:
        state = look_once(slurm_id)
        if (state is not None and state.kind == ENDED) or time.monotonic() > deadline:
            state = state if state is not None and state.kind == ENDED else None
            break
        time.sleep(_CANCEL_POLL_SECONDS)
    drop_when_ended(result, slurm_id, ended=state is not None, cancel_again=bool(said))
    return state, said


def look_once(slurm_id: str) -> SlurmState | None:
    """Where Slurm has ``slurm_id`` now, asked at once (``squeue``, else ``sacct``), or None when
    neither lists it (or Slurm cannot be asked): for a job that started and ended between two of
    the watcher's looks."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        return squeue(slurm_id).get(slurm_id) or sacct([slurm_id]).get(slurm_id)
    return None


def exit_code(slurm_id: str) -> str:
    """The exit code sacct has for job ``slurm_id`` (``3:0``; "" when it has none, or cannot be asked)."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        found = sacct([slurm_id]).get(slurm_id)
        return found.exit_code if found is not None else ""
    return ""


NO_ACCOUNTING = "accounting storage is disabled"
"""What sacct says on a cluster that keeps no accounting: an answer (it knows no job), not a failure."""


def sacct(job_ids: list[str]) -> dict[str, SlurmState]:
    """The accounting database's state of each job of ``job_ids`` it knows (none on a cluster without accounting).

    Raises:
        subprocess.CalledProcessError: sacct failed (the accounting database did not answer).
        subprocess.TimeoutExpired, OSError: no answer in 60 s; no sacct here.
    """
    command = ["sacct", "-X", "-n", "-P", "-o", "JobID,State,NodeList,ExitCode"]
    for jid in job_ids:
        command += ["-j", jid]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode and NO_ACCOUNTING not in done.stderr.lower():  # (without accounting: it knows no job)
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
    found: dict[str, SlurmState] = {}
    for line in done.stdout.splitlines():
        parts = line.split("|")
        if len(parts) == 4 and parts[0] in job_ids:
            state = parts[1].split()[0] if parts[1].strip() else "UNKNOWN"  # "CANCELLED by 0"
            code = "" if parts[3] in ("0:0", "") else parts[3]
            node = "" if parts[2] == "None assigned" else parts[2]  # a job that never started
            found[parts[0]] = SlurmState(state, "", node, code)
    return found


def unanswered(failure: OSError | subprocess.SubprocessError) -> str:
    """What a Slurm command that failed said, on one line, after its name (``squeue: ...``)."""
    if isinstance(failure, subprocess.CalledProcessError):
        said = last_lines(str(failure.stderr or "")) or f"exit status {failure.returncode}"
        return f"{failure.cmd[0]}: {said}"
    if isinstance(failure, subprocess.TimeoutExpired):
        return f"{failure.cmd[0]}: no answer in {failure.timeout:g} s"
    return str(failure)


OOM_KILLED = "oom-kill event"
"""What slurmstepd writes to a job's stderr when the cgroup's out-of-memory handler killed a process of it."""


def ran_out_of_memory(slurm_id: str, stderr: str) -> bool:
    """Whether job ``slurm_id``, which Slurm ended ``FAILED``, failed because a step of it ran out of
    memory: submitit runs the function in a step (``srun``), and Slurm marks that step
    ``OUT_OF_MEMORY`` while the job itself only ``FAILED`` (``sacct`` lists the steps); or its
    ``stderr`` says slurmstepd's out-of-memory handler killed a process (without accounting)."""
    if OOM_KILLED in stderr:
        return True
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(["sacct", "-n", "-P", "-j", slurm_id, "-o", "JobID,State"],
                              capture_output=True, text=True, timeout=60, check=False)
        return any(line.split("|")[-1].startswith("OUT_OF_MEMORY") for line in done.stdout.splitlines())
    return False


_watcher: SlurmWatch | None = None
_watcher_lock = threading.Lock()


def watcher(poll_interval: float = 1.0) -> SlurmWatch:
    """The process's watcher (the shortest ``poll_interval`` asked for wins)."""
    global _watcher
    with _watcher_lock:
        if _watcher is None:
            _watcher = SlurmWatch(poll_interval)
        _watcher.poll_interval = min(_watcher.poll_interval, poll_interval)
        return _watcher
