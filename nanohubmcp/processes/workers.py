"""The forked workers of ``nanohubmcp run --workers N``, as a worker and its parent see them: a worker's
number (:func:`worker_task`); the line the parent says on stderr when one ends, which died and how, after
the clean-ups registered with :func:`~nanohubmcp.server.wire.worker_cleanups.after_worker_death` ran, and
what a worker tells its parent through a shared page (:class:`WorkerDeaths`); each worker's own log lines,
naming its process (:func:`log_requests`); a worker's stop when its parent is gone (:func:`watch_parent`).

The parent's side, forking, watching, starting again, stopping, is :mod:`.supervisor`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import struct
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..server.wire.worker_cleanups import run_cleanups
from .log_lines import escaping_handler

if TYPE_CHECKING:
    import mmap

log = logging.getLogger("nanohubmcp")

STOP_SIGNALS: frozenset[int] = frozenset({signal.SIGINT, signal.SIGTERM})
"""What stops the whole server when sent to the parent, and one worker when sent to it (SIGHUP too, most
often: :func:`stop_signals`)."""
HANGUP: int | None = getattr(signal, "SIGHUP", None)
"""SIGHUP, what a closing terminal or ssh session sends (None where the platform has none)."""
HANGUP_LINE = ("stopping at SIGHUP (the terminal or session that started the server closed), as at SIGTERM; "
               "start it under nohup or a service manager to keep it serving")
"""What a server stopped by SIGHUP says on stderr (the ``--workers`` parent, or a single process)."""


def stop_signals() -> frozenset[int]:
    """The signals that stop a blocking serve cleanly, as read now: SIGINT, SIGTERM and SIGHUP, but SIGHUP
    only while it has its default action (which ends the process at once, without a word): a process
    started under ``nohup`` (SIGHUP ignored) or whose application handles SIGHUP itself keeps it so."""
    if HANGUP is not None and signal.getsignal(HANGUP) is signal.SIG_DFL:
        return STOP_SIGNALS | {HANGUP}
    return STOP_SIGNALS
PARENT_CHECK_SECONDS = 1.0
"""How often a forked worker checks that its parent still runs."""


def watch_parent(loop: asyncio.AbstractEventLoop, parent: int, serving: Callable[[], bool],
                 stop: Callable[[], None]) -> None:
    """In a forked worker serving on ``loop``: call ``stop`` once the process that forked it (``parent``)
    is gone (it was stopped), looking every :data:`PARENT_CHECK_SECONDS` while ``serving()``."""

    def check() -> None:
        if os.getppid() != parent:
            log.warning("worker %d: the parent process %d is gone; stopping", os.getpid(), parent)
            stop()
        elif serving():
            loop.call_later(PARENT_CHECK_SECONDS, check)

    loop.call_later(PARENT_CHECK_SECONDS, check)


_COUNT = struct.Struct("=ii")
"""A worker's numbers of running tool calls (plus one: 0 is not said yet) and of running jobs in the parent's shared
page."""


def worker_task() -> int | None:
    """This worker's number (0 ... N-1), or None outside a forked worker."""
    return WORKER_DEATHS.task


class WorkerDeaths:
    """The ``--workers`` parent's line, on stderr, when a worker ends (:meth:`ended`).

    "worker 1 (pid 123) killed by SIGKILL" (or "exited with status 3"), which the parent completes with what it does
    next ("; restarted", :class:`~.restarts.Next`). A worker that obeys a stop signal (:func:`stop_signals`; one
    received before its event loop ran too, :mod:`.early_stop`) exits with status 0 (or, should the signal's default
    action end it, is ended by it) and is not started again: "worker 1 (pid 123) stopped by SIGTERM; not restarted
    (1 of 2 left)" — the worker wrote the signal's number, before stopping, into a page the parent shares
    (:meth:`stopped_by`). One that exits with status 0 without having written one (a tool calling ``os._exit(0)``)
    was not told to stop: it crashed, as one exiting with an error did ("exited with status 0 without being told to
    stop"). A worker forked after a restart (:attr:`seen`) knows it is one started again (it prints no banner)."""

    def __init__(self) -> None:
        self.seen = False
        self.workers = 0
        self.left = 0
        """Workers running or to be started again (those that stopped are not)."""
        self.task: int | None = None
        """In a forked worker, its number."""
        self.stops: frozenset[int] = STOP_SIGNALS
        """The signals that stop a worker (:func:`stop_signals` in the parent before it forked)."""
        self._signals: mmap.mmap | None = None
        self._calls: mmap.mmap | None = None
        self._all_told: mmap.mmap | None = None

    def start(self, workers: int, stops: frozenset[int]) -> None:
        """Before forking ``workers`` processes (in the parent), whose stop signals are ``stops``: a shared
        byte per worker."""
        import mmap  # (for --workers only: a single process never loads it)

        self.workers = self.left = workers
        self.stops = stops
        self._signals = mmap.mmap(-1, workers)  # anonymous and shared: each worker writes its own byte
        self._calls = mmap.mmap(-1, _COUNT.size * workers)
        self._all_told = mmap.mmap(-1, 1)

    def stopping_all(self) -> None:
        """In the parent, told to stop, before it passes the signal on to every worker: each worker reads it
        (:meth:`all_told`)."""
        if self._all_told is not None:
            self._all_told[0] = 1

    def all_told(self) -> bool:
        """In a worker: whether its parent was told to stop (and passes, or passed, the signal on to every
        worker); False for a worker sent a stop signal alone."""
        return self._all_told is not None and self._all_told[0] == 1

    def forked(self, task: int) -> None:
        """In worker ``task`` just forked (or forked again)."""
        self.task = task

    def stopped_by(self, signum: int) -> None:
        """In a worker told to stop by ``signum``: say so to the parent (nothing outside a worker). Safe in a
        Python signal handler (one byte written), where the worker's exit watchdog calls it: a worker whose
        event loop a tool blocks, ended by that watchdog, was still told."""
        if self._signals is not None and self.task is not None and 0 < signum < 256:
            self._signals[self.task] = signum

    def calls_left(self, calls: int, jobs: int) -> None:
        """In a worker stopping, as its drain begins (its running calls' moment to answer, when it has any) and
        once it is over: it waits for ``calls`` tool calls and ``jobs`` functions of jobs still running, counted
        apart by :func:`~.process_exit.count_running` (0 and 0: none; its parent says how many all of them wait
        for once each still running has said it)."""
        if self._calls is not None and self.task is not None:
            _COUNT.pack_into(self._calls, self.task * _COUNT.size, calls + 1, jobs)  # (0: not said yet)

    def calls_waited(self) -> dict[int, tuple[int, int]]:
        """In the parent: by worker number, the tool calls and the jobs, as ``(calls, jobs)``, each stopping worker
        said it waits for (:meth:`calls_left`); a worker that has not said it yet is not in it."""
        if self._calls is None:
            return {}
        said = enumerate(_COUNT.iter_unpack(self._calls))
        return {task: (calls - 1, jobs) for task, (calls, jobs) in said if calls > 0}

    def ended(self, worker: int, pid: int, status: int) -> str | None:
        """In the parent, worker ``worker`` (process ``pid``) ended with wait ``status``: the clean-ups of a
        dead worker run (:func:`~..server.wire.worker_cleanups.run_cleanups`), then this is None when it
        stopped as told (said on stderr here; it is not started again), else how it crashed ("killed by
        SIGKILL", "exited with status 3"), for the parent to say with what it does next."""
        if self._calls is not None:
            _COUNT.pack_into(self._calls, worker * _COUNT.size, 0, 0)  # (it waits for none now)
        killed = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        code = os.waitstatus_to_exitcode(status) if killed is None else None
        told = self._signals[worker] if self._signals is not None else 0  # (the signal it obeyed, or 0)
        if told or killed in self.stops:
            self.left -= 1
            signum = told or killed or 0
            how = f"stopped by {_name(signum)}"
            if code or killed not in (None, signum):  # it did not end cleanly (a second signal in its wait, say)
                how += f" (then exited with status {code})" if code else f" (then killed by {_name(killed or 0)})"
            # Even when it did: one ended by its exit grace's timer (os._exit) left its programs running.
            run_cleanups()
            say(f"worker {worker} (pid {pid}) {how}; not restarted ({self.left} of {self.workers} left)")
            return None
        self.seen = True
        run_cleanups()  # (the worker reaped, before it is forked again)
        if self._signals is not None:
            self._signals[worker] = 0  # the worker started again has not been told to stop
        if code == 0:  # nothing told it to stop: a tool's os._exit(0), say
            return "exited with status 0 without being told to stop"
        if killed is None:
            return f"exited with status {code}"
        return f"killed by {_name(killed)}"


def _name(signum: int) -> str:
    """A signal's name ("SIGTERM"), or its number for one Python does not name."""
    with contextlib.suppress(ValueError):
        return signal.Signals(signum).name
    return f"signal {signum}"


def what_runs(calls: int, jobs: int, *, running: bool = True) -> str:
    """What a stop waits for, the tool calls and the functions of jobs (``@async_tool``, tasks) counted apart:
    ``N running tool call(s)``, ``and M running job(s)``; without ``running``: ``N tool call(s) and M job(s)`` (a
    single process's closing line). A single process's lines and the ``--workers`` parent's say it alike.

    Example:
        >>> what_runs(1, 2), what_runs(0, 1, running=False)
        ('1 running tool call(s) and 2 running job(s)', '1 job(s)')
    """
    adjective = "running " if running else ""
    parts = [f"{calls} {adjective}tool call(s)"] if calls else []
    if jobs:
        parts.append(f"{jobs} {adjective}job(s)")
    return " and ".join(parts)


def say(line: str) -> None:
    """Say ``line`` on stderr, as the ``--workers`` parent says what became of its workers; nothing when
    stderr is gone (a terminal closed: SIGHUP)."""
    with contextlib.suppress(OSError, ValueError):
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
            handler = escaping_handler(WORKER_FORMAT)  # (a client's text in the log: its escapes written as such)
            if not access:  # no line per request, not even a 5xx one (a store outage is logged once instead)
                handler.addFilter(lambda record: record.name != "nanohubmcp.access")
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False
