"""The ``--workers`` parent: it forks the workers, watches them, starts one again when it dies and
stops them all when told to (:func:`fork_workers`), over the sockets :func:`listen_in_workers` gives them.

When a crashed worker starts again is :mod:`.restarts`' policy. A worker whose event loop a tool blocks ends
itself at the exit grace after the stop (10 s by default, :mod:`.exit_grace`), as a single process does
(:class:`.exit_watch.ExitWatch`); one still running :func:`~.exit_grace.kill_wait` after it (15 s by default) is
killed, never left holding the port once the parent is gone.

The parent holds SIGINT, SIGTERM, SIGHUP (:func:`~.workers.stop_signals`) and SIGCHLD blocked from before
its first fork (:func:`hold_stop_signals`)
and takes them with ``sigtimedwait`` between forks and while it watches: a signal is never handled inside
``os.fork``'s at-fork hooks or a garbage collector's callback, where an exception raised by a handler is lost.
(Tornado's ``fork_processes``, used before, left the parent's handler raising ``SystemExit`` there:
a stop landing while it forked was swallowed, and the parent waited for ever on workers that served on.)
A worker takes them from its first instant too (:mod:`.early_stop`): one stopped before its event loop runs
stops cleanly, its ``atexit`` handlers run.

What a worker is and tells its parent (its number, how it ended, its log lines, its watch of the parent)
is :mod:`.workers`'; the runner (:mod:`..serving.runner`) serves in each worker.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import Any, NoReturn

from ..server.wire.worker_cleanups import run_cleanups
from .early_stop import take_early
from .exit_grace import DEFAULT_EXIT_GRACE_SECONDS, kill_wait
from .frozen_heap import freeze_start_up
from .ports import SPREAD_BY_KERNEL, bind
from .restarts import Restarts
from .workers import HANGUP, HANGUP_LINE, STOP_SIGNALS, WORKER_DEATHS, log_requests, say, stop_signals, what_runs

WATCH_SECONDS = 1.0
"""The parent's longest wait for a signal before it looks at its workers again anyway."""
REAP_SECONDS = 5.0
"""How long the parent waits for the workers it killed to be gone before it exits anyway."""
HINT_SECONDS = 5.0
"""How long the parent stopped by Ctrl-C waits for every worker to count the tool calls and jobs it still runs (each
does once its drain is over) before it says what it waits for without them (a worker whose event loop is
blocked never counts)."""


def listen_in_workers(workers: int, host: str, port: int, prepare: Callable[[], None],
                      grace: float = DEFAULT_EXIT_GRACE_SECONDS) -> list[socket.socket]:
    """Bind ``port`` on ``host``, fork ``workers`` processes (:func:`fork_workers`, each exiting within ``grace``
    seconds of its stop) and return, in each
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
    fork_workers(workers, grace)
    # Each worker, before it binds its own socket (elsewhere the workers share the parent's,
    # which checked the store before it bound: serving.runners.check_workers).
    prepare()
    if SPREAD_BY_KERNEL:
        sockets = bind(host, port, reuse_port=True)
    return sockets


def fork_workers(workers: int, grace: float = DEFAULT_EXIT_GRACE_SECONDS) -> None:
    """Fork ``workers`` processes; returns in each worker (:func:`~.workers.worker_task` then names it).
    Each worker exits within ``grace`` seconds of its stop (the exit grace, :mod:`.exit_grace`).

    The parent never returns. It starts a crashed worker again: at once, or after a pause when it keeps
    failing at its start (:class:`~.restarts.Restarts`); it says on stderr how each worker ended
    (:class:`~.workers.WorkerDeaths`) and what it does next ("restarted", "restarting in 2 s"). It exits:

    - with status 0 when SIGINT/SIGTERM reaches it and the workers stop in time: it passes the signal on
      to them and waits for them, at most :func:`~.exit_grace.kill_wait` of ``grace``. At Ctrl-C (SIGINT), with
      tool calls or jobs still running once the workers' drains are over, it says once how many in how many workers
      it waits for, the calls and the jobs apart as a single process says them ("stopped; waiting for 3 running tool
      call(s) and 1 running job(s) in 2 worker(s) to return ..."), or, once
      :data:`HINT_SECONDS` passed, for which workers not yet counted; at SIGTERM it says nothing;
    - likewise at SIGHUP (a terminal or ssh session closing), unless the process ignores it (``nohup``) or
      the application handles it (:func:`~.workers.stop_signals`): it says so in one line
      (:data:`~.workers.HANGUP_LINE`) and passes SIGTERM on; a SIGHUP repeated during the wait is ignored;
    - with status 1 when a worker told to stop exited with an error status (its exit watchdog ended it
      ``grace`` seconds after the signal, its event loop blocked: it said so), or was still running at that
      deadline, or at a second SIGINT or SIGTERM during the wait: it kills those (SIGKILL), saying so ("worker 1
      (pid 123) did not stop within 15 s; killed"), and reaps them;
    - with status 0 when every worker has stopped (each told to by a signal, which it obeys without
      being started again), after saying "every worker stopped; exiting". A worker ending with status 0
      untold (a tool's ``os._exit(0)``) crashed: it is started again;
    - with status 1, the other workers stopped as at SIGTERM, when a worker's starts kept failing for
      :data:`~.restarts.GIVE_UP_SECONDS` (one line says so).

    A stop signal reaching the parent at any moment from this call on (between two forks, inside one,
    while a worker waits to start again) stops every worker. Each worker logs the shared state store's
    outages with its process id; every request too only when asked (:func:`~.workers.log_requests`,
    ``nanohubmcp run --access-log``): a line per request costs about 6 % of a small call's CPU
    (bench/scaleout.md).
    """
    _Supervisor(workers, grace).run()
    log_requests(access=False)


_DELIVERED: list[int] = []
"""Stop signals a thread other than the main one received while they were held."""
_HELD: dict[int, Any] = {}
"""The handlers :func:`hold_stop_signals` replaced, by signal."""


def hold_stop_signals() -> None:
    """From now on, in the main thread of a ``--workers`` server that is about to fork: SIGINT,
    SIGTERM and SIGHUP (:func:`~.workers.stop_signals`, read now; and SIGCHLD) are held blocked, for
    :func:`fork_workers` to take and act on; never raised
    as an exception a garbage collector's callback or an at-fork hook would swallow. Called before the
    server's start-up checks, so that a stop during them too ends the server; undone by
    :func:`release_stop_signals` when it does not fork after all."""
    if _HELD:
        return
    # (A SIGHUP ignored, as under nohup, is left out: blocked, the kernel would queue it for sigtimedwait.)
    for sig in stop_signals():  # (the main thread takes them blocked; another thread records one)
        _HELD[sig] = signal.signal(sig, lambda signum, frame: _DELIVERED.append(signum))
    signal.pthread_sigmask(signal.SIG_BLOCK, _watched())


def release_stop_signals() -> None:
    """Undo :func:`hold_stop_signals` in a server that did not fork (a refused setting, a busy port);
    nothing once it forked (the parent exits through the held signals, each worker unblocked them)."""
    if not _HELD or WORKER_DEATHS.workers:
        return
    watched = _watched()
    for sig, handler in _HELD.items():
        signal.signal(sig, handler)
    _HELD.clear()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, watched)  # a signal held meanwhile is handled now


def _watched() -> frozenset[int]:
    """What the parent holds blocked and takes with ``sigtimedwait``: the stop signals it holds, SIGCHLD."""
    return frozenset(_HELD) | {signal.SIGCHLD}


class _Supervisor:
    """The parent's side of :func:`fork_workers`: fork, watch, start again (:class:`~.restarts.Restarts`), stop."""

    def __init__(self, workers: int, grace: float) -> None:
        self.workers = workers
        self.grace = grace  # each worker's exit grace; the parent's wait at a stop is kill_wait(grace)
        self.children: dict[int, int] = {}  # pid -> worker number
        self.forked_at: dict[int, float] = {}  # pid -> time.monotonic() of its fork
        self.due: dict[int, float] = {}  # worker number -> when to fork it again (time.monotonic())
        self.restarts = Restarts()
        self.given_up = False  # a worker's starts kept failing: the server stops
        self.stops: frozenset[int] = STOP_SIGNALS  # the stop signals held (run): SIGHUP too unless ignored or the app's
        self.watched: frozenset[int] = self.stops | {signal.SIGCHLD}
        self.unclean = False  # a worker told to stop exited with an error status (its exit watchdog's, 1)

    def run(self) -> int:
        """The worker number, in a worker; never returns in the parent."""
        hold_stop_signals()
        self.stops = frozenset(_HELD)
        self.watched = _watched()
        WORKER_DEATHS.start(self.workers, self.stops)
        freeze_start_up(kept=True)  # (before the first fork: no worker's collections walk, or copy, our heap)
        for task in range(self.workers):
            self._stop_if_told(signal.sigtimedwait(self.stops, 0))
            if self._fork(task):
                return task
        while True:
            self._stop_if_told(signal.sigtimedwait(self.watched, self._patience()))
            for pid, status in _reaped():
                if pid in self.children:
                    self._ended(pid, status)
            if self.given_up:  # (once every worker reaped above is forgotten: none is signalled or waited for)
                self._stop(signal.SIGTERM, 1)
            now = time.monotonic()
            for task in [task for task, when in self.due.items() if when <= now]:
                del self.due[task]
                if self._fork(task):
                    return task
            if not self.children and not self.due:
                say("every worker stopped; exiting")
                sys.exit(0)

    def _patience(self) -> float:
        """How long to wait for a signal: until the next worker due to start again, at most WATCH_SECONDS."""
        if not self.due:
            return WATCH_SECONDS
        return max(0.0, min(WATCH_SECONDS, min(self.due.values()) - time.monotonic()))

    def _ended(self, pid: int, status: int) -> None:
        task = self.children.pop(pid)
        forked_at = self.forked_at.pop(pid)
        how = WORKER_DEATHS.ended(task, pid, status)
        if how is None:  # it stopped as told (said): not started again
            return
        now = time.monotonic()
        then = self.restarts.died(task, forked_at, now)
        say(f"worker {task} (pid {pid}) {how}; {then.words()}")
        if then.pause is None:
            self.given_up = True
        else:
            self.due[task] = now + then.pause

    def _fork(self, task: int) -> bool:
        """Fork worker ``task``; True in it, its stop signals taken from its first instant (:mod:`.early_stop`)."""
        pid = os.fork()
        if pid:
            self.children[pid] = task
            self.forked_at[pid] = time.monotonic()
            return False
        WORKER_DEATHS.forked(task)
        take_early(self.stops)  # (until its loop takes them: a stop now is recorded, for the loop to act on)
        _HELD.clear()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, self.watched)
        return True

    def _stop_if_told(self, info: Any) -> None:
        signum = info.si_signo if info is not None and info.si_signo in self.stops else None
        if signum is None and _DELIVERED:
            signum = _DELIVERED[0]
        if signum is not None:
            self._stop(signum, 0)

    def _stop(self, signum: int, status: int) -> NoReturn:
        """Pass ``signum`` on to every worker (SIGTERM for SIGHUP), wait for them (at most ``kill_wait``; a
        second SIGINT or SIGTERM ends the wait) and exit with ``status``; with 1 if a worker had to be killed.
        Once the workers are gone, the clean-ups of ended workers run once
        (:func:`~nanohubmcp.server.wire.worker_cleanups.run_cleanups`): a worker that its exit grace's timer or its
        watchdog ended ran no exit code."""
        self.due.clear()  # a worker waiting to start again is not started
        if signum == HANGUP:
            say(HANGUP_LINE)
            signum = signal.SIGTERM  # (what a worker obeys however it treats SIGHUP)
            hinted = True  # (nobody is left at the terminal to press Ctrl-C)
        else:  # (a service manager's SIGTERM: nothing to say, nobody to press Ctrl-C)
            hinted = signum != signal.SIGINT
        # Told in turn, and waited for: each drains its calls, as one sent the signal does, and says nothing.
        WORKER_DEATHS.stopping_all()  # (first: a worker's lines then name the server to signal again)
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)
        stopping = bool(self.children)  # (those that ended before were cleaned up after: WorkerDeaths.ended)
        began = time.monotonic()
        waits = kill_wait(self.grace)
        deadline = began + waits
        why = f"did not stop within {waits:g} s"
        delivered = len(_DELIVERED)
        while self.children and time.monotonic() < deadline:
            info = signal.sigtimedwait(self.watched, max(0.0, min(0.1, deadline - time.monotonic())))
            self._forget(_reaped())
            if not hinted and self.children:
                line = self._waiting(late=time.monotonic() - began >= HINT_SECONDS)
                if line is not None:
                    hinted = True
                    say(line)
            # A second SIGINT or SIGTERM: quit now (a SIGHUP again is the same hang-up, sent by the shell too).
            again = info.si_signo if info is not None and info.si_signo in STOP_SIGNALS else None
            if again is None:
                again = next((sig for sig in _DELIVERED[delivered:] if sig in STOP_SIGNALS), None)
            if again is not None:
                why = f"was still stopping at the second {signal.Signals(again).name}"
                break
        self._forget(_reaped())
        killed = bool(self.children)
        if killed:
            self._kill_the_rest(why)  # (the clean-ups run there, once the killed are reaped)
        elif stopping:
            run_cleanups()
        sys.exit(status or int(killed or self.unclean))

    def _waiting(self, *, late: bool) -> str | None:
        """What the parent stopped by Ctrl-C waits for, once every worker still running has counted the tool
        calls and the jobs it still runs after its drain, apart (or, ``late``, without those that have not); None
        when nothing."""
        said = WORKER_DEATHS.calls_waited()
        counts = [said[task] for task in self.children.values() if task in said]
        silent = sorted((task, pid) for pid, task in self.children.items() if task not in said)
        if silent and not late:
            return None
        parts = []
        calls, jobs = sum(calls for calls, _ in counts), sum(jobs for _, jobs in counts)
        if calls or jobs:  # (named as a single process names them: workers.what_runs)
            parts.append(f"{what_runs(calls, jobs)} in {sum(1 for count in counts if any(count))} worker(s) to "
                         "return (they were told to cancel)")
        if silent:
            parts.append(", ".join(f"worker {task} (pid {pid})" for task, pid in silent) + " to stop")
        if not parts:
            return None
        return (f"stopped; waiting for {' and for '.join(parts)}; each worker exits within {self.grace:g} s of the "
                f"stop, or is killed {kill_wait(self.grace):g} s after it - press Ctrl-C again to quit now")

    def _kill_the_rest(self, why: str) -> None:
        """SIGKILL the workers still running, saying so, and reap them (bounded: REAP_SECONDS); then the
        clean-ups of dead workers (their Rappture programs) run."""
        for pid, task in self.children.items():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            say(f"worker {task} (pid {pid}) {why}; killed")
        deadline = time.monotonic() + REAP_SECONDS
        while self.children and time.monotonic() < deadline:
            signal.sigtimedwait({signal.SIGCHLD}, max(0.0, min(0.1, deadline - time.monotonic())))
            self._forget(_reaped())
        run_cleanups()
        for pid, task in self.children.items():  # (in the kernel's hands: a SIGKILL ends it when it returns)
            say(f"worker {task} (pid {pid}) killed but not gone after {REAP_SECONDS:g} s; exiting without it")

    def _forget(self, reaped: list[tuple[int, int]]) -> None:
        for pid, status in reaped:
            worker = self.children.pop(pid, None) is not None  # (not a child of the app's own, reaped too)
            self.forked_at.pop(pid, None)
            if worker and os.WIFEXITED(status) and os.WEXITSTATUS(status):  # its exit watchdog ended it, say
                self.unclean = True


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
