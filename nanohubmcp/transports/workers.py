"""The forked workers of ``nanohubmcp run --workers N``: the parent forks them and starts one
again when it dies (:func:`fork_workers`), saying on stderr which died and how
(:class:`WorkerDeaths`), after the clean-ups registered with
:func:`~nanohubmcp.server.wire.worker_cleanups.after_worker_death` ran; each
worker's own log lines name its process (:func:`log_requests`).

The parent holds SIGINT, SIGTERM and SIGCHLD blocked from before its first fork and takes them with
``sigtimedwait`` between forks and while it watches: a signal is never handled inside ``os.fork``'s
at-fork hooks or a garbage collector's callback, where an exception raised by a handler is lost.
(Tornado's ``fork_processes``, used before, left the parent's handler raising ``SystemExit`` there:
a stop landing while it forked was swallowed, and the parent waited for ever on workers that served on.)

The runner (:mod:`.runner`) binds the port, calls :func:`fork_workers`, and serves in each worker.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
import signal
import struct
import sys
import time
from typing import Any

from ..server.wire.worker_cleanups import run_cleanups

STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})
"""What stops the whole server when sent to the parent, and one worker when sent to it."""
WATCHED = STOP_SIGNALS | {signal.SIGCHLD}
"""What the parent holds blocked and takes with ``sigtimedwait``."""
WATCH_SECONDS = 1.0
"""The parent's longest wait for a signal before it looks at its workers again anyway."""
MAX_RESTARTS = 1000
STOP_WAIT_SECONDS = 15.0
"""How long the parent told to stop waits for its workers to finish (their drain takes a few seconds)."""


def fork_workers(workers: int) -> None:
    """Fork ``workers`` processes; returns in each worker (:func:`worker_task` then names it).

    The parent never returns: it starts a worker again when one dies, and exits with status 0
    when SIGINT/SIGTERM reaches it (it passes the signal on to its workers and waits for them,
    at most :data:`STOP_WAIT_SECONDS`; a second signal meanwhile leaves at once) or when every
    worker has stopped (each told to by a signal, which it obeys without being started again);
    it says on stderr how each worker ended (:class:`WorkerDeaths`) and, after the last, "every
    worker stopped; exiting". A stop signal reaching the parent at any moment from this call on
    (between two forks, inside one) stops every worker. Each worker logs the shared state store's
    outages with its process id; every request too only when asked (:func:`log_requests`,
    ``nanohubmcp run --access-log``): a line per request costs about 6 % of a small call's CPU
    (bench/scaleout.md).

    Raises:
        RuntimeError: (in the parent) workers died and were started again more than
            :data:`MAX_RESTARTS` times.
    """
    task = _Supervisor(workers).run()
    WORKER_DEATHS.forked(task)
    log_requests(access=False)


_DELIVERED: list[int] = []
"""Stop signals a thread other than the main one received while they were held."""
_HELD: dict[int, Any] = {}
"""The handlers :func:`hold_stop_signals` replaced, by signal."""


def hold_stop_signals() -> None:
    """From now on, in the main thread of a ``--workers`` server that is about to fork: SIGINT and
    SIGTERM (and SIGCHLD) are held blocked, for :func:`fork_workers` to take and act on; never raised
    as an exception a garbage collector's callback or an at-fork hook would swallow. Called before the
    server's start-up checks, so that a stop during them too ends the server; undone by
    :func:`release_stop_signals` when it does not fork after all."""
    if _HELD:
        return
    for sig in STOP_SIGNALS:  # (the main thread takes them blocked; another thread records one)
        _HELD[sig] = signal.signal(sig, lambda signum, frame: _DELIVERED.append(signum))
    signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED)


def release_stop_signals() -> None:
    """Undo :func:`hold_stop_signals` in a server that did not fork (a refused setting, a busy port);
    nothing once it forked (the parent exits through the held signals, each worker unblocked them)."""
    if not _HELD or WORKER_DEATHS.workers:
        return
    for sig, handler in _HELD.items():
        signal.signal(sig, handler)
    _HELD.clear()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, WATCHED)  # a signal held meanwhile is handled now


class _Supervisor:
    """The parent's side of :func:`fork_workers`: fork, watch, start again, stop."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.children: dict[int, int] = {}  # pid -> worker number
        self.restarts = 0

    def run(self) -> int:
        """The worker number, in a worker; never returns in the parent."""
        hold_stop_signals()
        WORKER_DEATHS.start(self.workers)
        for task in range(self.workers):
            self._stop_if_told(signal.sigtimedwait(STOP_SIGNALS, 0))
            if self._fork(task):
                return task
        while True:
            self._stop_if_told(signal.sigtimedwait(WATCHED, WATCH_SECONDS))
            for pid, status in _reaped():
                if pid not in self.children:
                    continue
                task = self.children.pop(pid)
                if WORKER_DEATHS.ended(task, pid, status):
                    self.restarts += 1
                    if self.restarts > MAX_RESTARTS:
                        raise RuntimeError("Too many worker restarts, giving up")
                    if self._fork(task):
                        return task
            if not self.children:
                print("nanohubmcp: every worker stopped; exiting", file=sys.stderr, flush=True)
                sys.exit(0)

    def _fork(self, task: int) -> bool:
        """Fork worker ``task``; True in it (its signals as a process's own again)."""
        pid = os.fork()
        if pid:
            self.children[pid] = task
            return False
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)  # until its loop takes them: a stop now ends it at once
        _HELD.clear()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, WATCHED)
        return True

    def _stop_if_told(self, info: Any) -> None:
        signum = info.si_signo if info is not None and info.si_signo in STOP_SIGNALS else None
        if signum is None and _DELIVERED:
            signum = _DELIVERED[0]
        if signum is None:
            return
        # Told in turn, and waited for: each drains its calls, as one sent the signal does, and says nothing.
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        hinted = signum != signal.SIGINT  # (a service manager's SIGTERM: nothing to say, nobody to press Ctrl-C)
        while self.children and time.monotonic() < deadline:  # bounded: a stuck worker still sees the parent gone
            info = signal.sigtimedwait(WATCHED, max(0.0, min(0.1, deadline - time.monotonic())))
            calls = WORKER_DEATHS.calls_waited()
            if calls and not hinted:
                hinted = True
                _say(f"stopped; waiting for {calls} running tool call(s) of the workers to return (they were told "
                     "to cancel; each worker exits within 10 s of the stop) - press Ctrl-C again to quit now")
            if info is not None and info.si_signo in STOP_SIGNALS:
                break  # a second signal: leave at once
            for pid, _ in _reaped():
                self.children.pop(pid, None)
        sys.exit(0)


def _reaped() -> list[tuple[int, int]]:
    """The children that ended since the last look: (pid, wait status) each."""
    ended = []
    with contextlib.suppress(ChildProcessError):
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if not pid:
                break
            ended.append((pid, status))
    return ended


_COUNT = struct.Struct("=i")
"""A worker's number of running calls in the parent's shared page."""


def worker_task() -> int | None:
    """This worker's number (0 ... N-1), or None outside a forked worker."""
    return WORKER_DEATHS.task


class WorkerDeaths:
    """The ``--workers`` parent's line, on stderr, when a worker ends (:meth:`ended`).

    "worker 1 (pid 123) killed by SIGKILL; restarted" (or "exited with status 3"). A worker
    that obeys SIGTERM or SIGINT exits with status 0 (or, told before its loop took the signal, is
    ended by it) and is not started again: "worker 1 (pid 123) stopped by SIGTERM; not restarted
    (1 of 2 left)" — the worker wrote the signal's number, before stopping, into a page the parent
    shares (:meth:`stopped_by`); without one, "exited with status 0". A worker forked after a
    restart (:attr:`seen`) knows it is one started again (it prints no banner)."""

    def __init__(self) -> None:
        self.seen = False
        self.workers = 0
        self.left = 0
        """Workers running or to be started again (those that stopped are not)."""
        self.task: int | None = None
        """In a forked worker, its number."""
        self._signals: mmap.mmap | None = None
        self._calls: mmap.mmap | None = None

    def start(self, workers: int) -> None:
        """Before forking ``workers`` processes (in the parent): a shared byte per worker."""
        self.workers = self.left = workers
        self._signals = mmap.mmap(-1, workers)  # anonymous and shared: each worker writes its own byte
        self._calls = mmap.mmap(-1, _COUNT.size * workers)

    def forked(self, task: int) -> None:
        """In worker ``task`` just forked (or forked again)."""
        self.task = task

    def stopped_by(self, signum: int) -> None:
        """In a worker told to stop by ``signum``: say so to the parent (nothing outside a worker)."""
        if self._signals is not None and self.task is not None and 0 < signum < 256:
            self._signals[self.task] = signum

    def calls_left(self, count: int) -> None:
        """In a worker stopping: it waits for ``count`` tool calls still running (its parent says so)."""
        if self._calls is not None and self.task is not None:
            _COUNT.pack_into(self._calls, self.task * _COUNT.size, count)

    def calls_waited(self) -> int:
        """In the parent: the tool calls its stopping workers said they wait for (:meth:`calls_left`)."""
        return sum(count for (count,) in _COUNT.iter_unpack(self._calls)) if self._calls is not None else 0

    def ended(self, worker: int, pid: int, status: int) -> bool:
        """In the parent, worker ``worker`` (process ``pid``) ended with wait ``status``: say how on
        stderr; True when it is to be started again (the clean-ups of a dead worker ran)."""
        if self._calls is not None:
            _COUNT.pack_into(self._calls, worker * _COUNT.size, 0)  # (it waits for none now)
        killed = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        code = os.waitstatus_to_exitcode(status) if killed is None else None
        if code == 0 or killed in STOP_SIGNALS:
            self.left -= 1
            how = "exited with status 0"
            signum = killed or (self._signals[worker] if self._signals is not None else 0)
            with contextlib.suppress(ValueError):
                how = f"stopped by {signal.Signals(signum).name}" if signum else how
            _say(f"worker {worker} (pid {pid}) {how}; not restarted ({self.left} of {self.workers} left)")
            return False
        self.seen = True
        run_cleanups()  # (the worker reaped, before it is forked again)
        if self._signals is not None:
            self._signals[worker] = 0  # the worker started again has not been told to stop
        if killed is not None:
            name: object = killed
            with contextlib.suppress(ValueError):
                name = signal.Signals(killed).name
            _say(f"worker {worker} (pid {pid}) killed by {name}; restarted")
        else:
            _say(f"worker {worker} (pid {pid}) exited with status {code}; restarted")
        return True


def _say(line: str) -> None:
    print(f"nanohubmcp: {line}", file=sys.stderr, flush=True)


WORKER_DEATHS = WorkerDeaths()


WORKER_FORMAT = "[worker pid %(process)d] %(name)s %(levelname)s %(message)s"


def log_requests(*, access: bool = True) -> None:
    """Log on stderr, each line naming the serving process (``[worker pid N] nanohubmcp.access ...``):
    the shared state store's outages, with ``access`` every request, and every other ``nanohubmcp``
    warning (a refused ``Host`` or ``Origin``, ...) when the application configured no logging (they
    would be printed bare, unattributable in a multi-process log). A logger that already has a handler
    is left as it is."""
    wanted = [("nanohubmcp.state", logging.INFO)]
    if access:
        wanted.append(("nanohubmcp.access", logging.DEBUG))
    if not logging.getLogger().handlers:
        wanted.append(("nanohubmcp", logging.WARNING))
    handler: logging.Handler | None = None
    for name, level in wanted:
        logger = logging.getLogger(name)
        if logger.handlers:
            continue
        if handler is None:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter(WORKER_FORMAT))
            if not access:  # no line per request, not even a 5xx one (a store outage is logged once instead)
                handler.addFilter(lambda record: record.name != "nanohubmcp.access")
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False
