"""The programs this process's Rappture runs are running, and ending them when the process exits.

A run's program leads a process group of its own (:mod:`.execute`). A cancel or stop ends it with
SIGTERM, then SIGKILL two seconds later; but a process exiting sooner than that (a short exit grace:
``--exit-grace 2``) would leave a program that ignores SIGTERM running on, reparented, with no time
limit — and its run folder, by which the next server's sweep (:mod:`..orphans`) finds such programs,
removed at the exit. So the process, at its exit, before it removes its run folders
(:mod:`.rundirs`), calls :func:`stop_all`: every program still running gets SIGKILL to its whole
group, synchronously. A program started after that is killed as it starts. Quitting at once (a
second Ctrl-C, the exit watchdog: ``os._exit``, no exit handler) it calls it too
(:mod:`nanohubmcp.server.wire.quick_exit`), and leaves the folders to the next sweep.

A process killed with SIGKILL runs no exit code: its programs are the next sweep's (or, under
``--workers``, its parent's; a job's process of the ``processes`` executor, killed by SIGTERM at a stop, its
server's, once it ended). A forked child starts with none of its parent's programs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

from ...server.wire.fork_safe import ForkSafeLock, after_fork_in_child

__all__ = ["STOP_WAIT_SECONDS", "ended", "started", "stop_all"]

STOP_WAIT_SECONDS = 0.5
"""The longest :func:`stop_all` waits for the programs it killed to be gone (a SIGKILL takes milliseconds): a
small part of the second a process has for its exit handlers."""

_lock = ForkSafeLock()  # (a child forked while a run noted its program, a processes job's, has it free)
_running: dict[subprocess.Popen[str], int] = {}  # a program -> the pid of the process that started it
_stopped_at_exit: set[int] = set()  # the processes that ran stop_all (a forked child has its own pid)


after_fork_in_child(_running.clear)  # a forked child runs none of its parent's programs


def started(program: subprocess.Popen[str]) -> None:
    """Note ``program`` (started leading a process group of its own) as running until :func:`ended`;
    once this process is exiting (:func:`stop_all` ran), its group is killed at once instead."""
    with _lock:
        if os.getpid() not in _stopped_at_exit:
            _running[program] = os.getpid()
            return
    _kill_group(program)


def ended(program: subprocess.Popen[str]) -> None:
    """``program`` has been waited for: nothing of it is left to stop."""
    with _lock:
        _running.pop(program, None)


def stop_all() -> list[int]:
    """SIGKILL the process group of every program this process started and has not seen end (those
    a forked parent started are not its own), then wait for each to be gone, at most
    :data:`STOP_WAIT_SECONDS` in all; returns their pids. Programs started afterwards are killed as
    they start (:func:`started`): meant for the process's exit."""
    # (Bounded: it may run in a signal handler of the thread that holds the lock.)
    locked = _lock.acquire(timeout=STOP_WAIT_SECONDS)
    try:
        _stopped_at_exit.add(os.getpid())
        mine = [program for program, owner in _running.copy().items() if owner == os.getpid()]
    finally:
        if locked:
            _lock.release()
    for program in mine:
        _kill_group(program)
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    for program in mine:  # (our children: waited for here, or by the run's own thread, whichever is first)
        with contextlib.suppress(subprocess.TimeoutExpired):
            program.wait(timeout=max(0.0, deadline - time.monotonic()))
    return [program.pid for program in mine]


def _kill_group(program: subprocess.Popen[str]) -> None:
    # The whole group, even when its leader was waited for: what the leader started may run on in it
    # (rappture -execute ends at SIGTERM, the tool's program may not), and the group's id is not free while
    # one of them does. (A run notes its program ended once it stopped that group.)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(program.pid, signal.SIGKILL)
