"""The ``--workers`` parent: it forks the workers, watches them, starts one again when it dies and
stops them all when told to (:func:`fork_workers`), over the sockets :func:`listen_in_workers` gives them.

The parent holds SIGINT, SIGTERM and SIGCHLD blocked from before its first fork (:func:`hold_stop_signals`)
and takes them with ``sigtimedwait`` between forks and while it watches: a signal is never handled inside
``os.fork``'s at-fork hooks or a garbage collector's callback, where an exception raised by a handler is lost.
(Tornado's ``fork_processes``, used before, left the parent's handler raising ``SystemExit`` there:
a stop landing while it forked was swallowed, and the parent waited for ever on workers that served on.)

What a worker is and tells its parent (its number, how it ended, its log lines, its watch of the parent)
is :mod:`.workers`'; the runner (:mod:`.runner`) serves in each worker.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

from .ports import SPREAD_BY_KERNEL, bind
from .workers import STOP_SIGNALS, WORKER_DEATHS, log_requests, say

WATCHED = STOP_SIGNALS | {signal.SIGCHLD}
"""What the parent holds blocked and takes with ``sigtimedwait``."""
WATCH_SECONDS = 1.0
"""The parent's longest wait for a signal before it looks at its workers again anyway."""
MAX_RESTARTS = 1000
STOP_WAIT_SECONDS = 15.0
"""How long the parent told to stop waits for its workers to finish (their drain takes a few seconds)."""


def listen_in_workers(workers: int, host: str, port: int, prepare: Callable[[], None]) -> list[socket.socket]:
    """Bind ``port`` on ``host``, fork ``workers`` processes (:func:`fork_workers`) and return, in each
    worker once ``prepare()`` ran there, the sockets it serves on: on Linux a socket of its own
    (:data:`~.ports.SPREAD_BY_KERNEL`), elsewhere the parent's. The port is checked without
    ``SO_REUSEPORT`` first, so one another server holds (even a ``--workers`` one) raises
    :class:`~nanohubmcp.errors.ConfigurationError` ("already in use"). The parent never returns.
    """
    # Bound without SO_REUSEPORT first: a port another SO_REUSEPORT group (a second
    # ``--workers`` server) serves is refused here as for one process, not shared with it.
    sockets = bind(host, port)
    if SPREAD_BY_KERNEL:  # the port is checked (and chosen, for 0); each worker binds its own below
        port = sockets[0].getsockname()[1]
        for sock in sockets:
            sock.close()
    fork_workers(workers)
    # Each worker, before it binds its own socket (elsewhere the workers share the parent's,
    # which checked the store before it bound: serving.runners.check_workers).
    prepare()
    if SPREAD_BY_KERNEL:
        sockets = bind(host, port, reuse_port=True)
    return sockets


def fork_workers(workers: int) -> None:
    """Fork ``workers`` processes; returns in each worker (:func:`~.workers.worker_task` then names it).

    The parent never returns: it starts a worker again when one dies, and exits with status 0
    when SIGINT/SIGTERM reaches it (it passes the signal on to its workers and waits for them,
    at most :data:`STOP_WAIT_SECONDS`; a second signal meanwhile leaves at once) or when every
    worker has stopped (each told to by a signal, which it obeys without being started again);
    it says on stderr how each worker ended (:class:`~.workers.WorkerDeaths`) and, after the last, "every
    worker stopped; exiting". A stop signal reaching the parent at any moment from this call on
    (between two forks, inside one) stops every worker. Each worker logs the shared state store's
    outages with its process id; every request too only when asked (:func:`~.workers.log_requests`,
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
                say(f"stopped; waiting for {calls} running tool call(s) of the workers to return (they were told "
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
