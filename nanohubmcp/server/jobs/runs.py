"""Runs: which start of which server process a job belongs to, and whether that run still serves.

A job record names the runner that ran it, ``<process>.<start>`` (:func:`runner_token`): the
process part is a random token each job store draws, the start is counted from 1 and a new one
begins at every stop of the server (:meth:`Runs.next_start`). The other live processes of the same
server (``--workers N``, processes sharing a Redis or a state directory) are known by their runner
locks: a lock file in the state directory (:class:`RunnerLocks`) or a Redis heartbeat
(``RedisRunners``), each naming its process's current start.

The job store asks two questions of them: does the run that started a job still serve (a session's
job stays that session's only while it does: :mod:`.visibility`), and does another live process
run a job (a restarted server then leaves it to that process). Nothing here reads or writes a job
record.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import weakref
from typing import IO, Any, Protocol

from ..wire.state_dir import private_folder, private_opener

__all__ = ["RunnerLock", "RunnerLocks", "Runs", "process_of", "runner_token"]


class RunnerLock(Protocol):
    """How a server's live processes know each other's runs: the seam a job store's back end supplies
    (:class:`RunnerLocks`, lock files in the state directory; ``state.redis_runners.RedisRunners``, heartbeats in
    Redis). ``token`` is a process's random token, ``run`` its ``<process>.<start>``."""

    def claim(self, token: str, run: str) -> None:
        """Hold this process's lock as ``token``, serving ``run``."""
        ...

    def started(self, run: str) -> None:
        """This process serves ``run`` from now on (a new start after a stop)."""
        ...

    def alive(self, token: str | None) -> bool:
        """Whether process ``token`` holds its lock now."""
        ...

    def serving(self, process: str, run: str) -> bool:
        """Whether process ``process`` still serves ``run``."""
        ...

    def release(self) -> None:
        """Let this process's lock go."""
        ...


def runner_token(process: str, run: int) -> str:
    """The runner token of a server's ``run``-th start in the process that claimed ``process``
    (a job record names the runner that ran it)."""
    return f"{process}.{run}"


def process_of(runner: str | None) -> str | None:
    """The process part of a runner token (a record of an earlier version names the process only)."""
    return runner.partition(".")[0] if runner else None


class Runs:
    """This process's starts of the server, and what the runner locks say of the other processes.

    Attributes:
        process: this job store's process token (drawn once; the part before the dot).
        runner: the runner token of the current start (the one new jobs carry).

    Until :meth:`claim` (the back end opened; never with a memory store) no other process is known.
    """

    def __init__(self) -> None:
        self.process = secrets.token_hex(12)
        self._starts = 1
        self.runner = runner_token(self.process, self._starts)
        self._locks: RunnerLock | None = None

    @property
    def locks(self) -> RunnerLock | None:
        """The runner locks this process holds its lock among (None before :meth:`claim`)."""
        return self._locks

    def claim(self, locks: RunnerLock) -> None:
        """Hold this process's lock among ``locks`` (lock files or Redis heartbeats) from now on.

        Raises:
            OSError: the lock file cannot be made (the job store then keeps its jobs in memory).
        """
        self._locks = locks
        locks.claim(self.process, self.runner)

    def next_start(self) -> None:
        """The server stopped: jobs of its next start carry a new runner token, and the lock says so."""
        self._starts += 1
        self.runner = runner_token(self.process, self._starts)
        if self._locks is not None:
            self._locks.started(self.runner)

    def serving(self, runner: str | None) -> bool:
        """Whether the run that ``runner`` names still serves: this start, or the current start of
        another live process of this server (a sibling worker, a process on another machine)."""
        if runner == self.runner:
            return True
        process = process_of(runner)
        if not runner or process == self.process or self._locks is None:
            return False
        return self._locks.serving(process or "", runner)

    def elsewhere(self, runner: str | None) -> bool:
        """Whether another live process of this server runs the job whose record names ``runner``."""
        process = process_of(runner)
        return process != self.process and self._locks is not None and self._locks.alive(process)


class RunnerLocks:
    """Which server processes are alive, by lock files: each process holds an exclusive lock on
    ``runners/<token>.lock`` while it runs; the system releases it when the process dies, even
    by ``kill -9``. A job record names its runner (the process's token and which start of the
    server in it ran the job: ``<process>.<start>``), so a restarted server tells a job another
    live process is running from one whose process is gone. The file holds the runner token of
    the process's current start, so another process tells a job of a run still serving from one
    of an earlier start of a live process."""

    def __init__(self, directory: str) -> None:
        self._dir = os.path.join(directory, "runners")
        self._held: Any = None

    def claim(self, token: str, run: str) -> None:
        """Hold the lock of ``token`` for the life of this process; its current start is ``run``."""
        private_folder(self._dir)
        handle = open(os.path.join(self._dir, f"{token}.lock"), "w", opener=private_opener)  # noqa: SIM115 (held open on purpose)
        if _flock(handle, blocking=True):
            self._held = handle
            weakref.finalize(self, handle.close)  # released with this object (the process's end at the latest)
            self.started(run)
        else:
            handle.close()

    def started(self, run: str) -> None:
        """The process started its server again: ``run`` is its current start from now on."""
        if self._held is not None:
            with contextlib.suppress(OSError):
                self._held.seek(0)
                self._held.truncate()
                self._held.write(run)
                self._held.flush()

    def alive(self, token: str | None) -> bool:
        """True while the process that claimed ``token`` runs (a stale lock file is removed)."""
        return self._current(token) is not None

    def serving(self, process: str, run: str) -> bool:
        """True while the process ``process`` is alive and ``run`` is its current start."""
        return self._current(process) == run

    def _current(self, token: str | None) -> str | None:
        """The current start of the live process that claimed ``token`` ("" when it does not say),
        None when that process is gone (its stale lock file is then removed)."""
        if not token:
            return None
        path = os.path.join(self._dir, f"{os.path.basename(token)}.lock")
        try:
            handle = open(path, "a+")  # noqa: SIM115
        except OSError:
            return None
        with handle:
            if not _flock(handle, blocking=False):
                handle.seek(0)
                return handle.read(200)
            os.unlink(path)
            return None

    def release(self) -> None:
        """Give the lock up (the store closed)."""
        if self._held is not None:
            path = self._held.name
            self._held.close()
            self._held = None
            with contextlib.suppress(OSError):
                os.unlink(path)


def _flock(handle: IO[Any], *, blocking: bool) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows: no flock; a job of another process is taken as that process's
        return blocking
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True
