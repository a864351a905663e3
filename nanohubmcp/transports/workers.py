"""The forked workers of ``nanohubmcp run --workers N``: the parent forks them and starts one
again when it dies (:func:`fork_workers`), saying on stderr which died and how
(:class:`WorkerDeaths`), after the clean-ups registered with
:func:`~nanohubmcp.server.wire.worker_cleanups.after_worker_death` ran; each
worker's own log lines name its process (:func:`log_requests`).

The runner (:mod:`.runner`) binds the port, calls :func:`fork_workers`, and serves in each worker.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
import signal
import struct
import time
from typing import Any

import tornado.process

from ..server.wire.worker_cleanups import run_cleanups


def fork_workers(workers: int) -> None:
    """Fork ``workers`` processes (Tornado's ``fork_processes``); returns in each worker.

    The parent never returns: it starts a worker again when one dies, and exits when
    SIGINT/SIGTERM reaches it (it passes the signal on to its workers and waits for them) or when every worker has
    stopped (each told to by a signal, which it obeys without being started again); it says on
    stderr how each worker ended (:class:`WorkerDeaths`) and, after the last, "every worker
    stopped; exiting". Each worker logs the shared state store's outages with its process id;
    every request too only when asked (:func:`log_requests`, ``nanohubmcp run --access-log``):
    a line per request costs about 6 % of a small call's CPU (bench/scaleout.md).
    """

    def leave(signum: int, frame: Any) -> None:
        WORKER_DEATHS.stop_workers(signum)  # told in turn, and waited for: they stop quietly, as one told does
        raise SystemExit(0)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, leave)
    deaths = logging.getLogger("tornado.general")  # where fork_processes says a worker died
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("nanohubmcp: %(message)s"))
    handler.addFilter(WORKER_DEATHS)
    deaths.addHandler(handler)
    propagate, deaths.propagate = deaths.propagate, False
    level = deaths.level
    deaths.setLevel(logging.INFO)  # "exited normally" (a worker that obeyed a signal) is INFO
    WORKER_DEATHS.start(workers)
    try:
        tornado.process.fork_processes(workers, max_restarts=1000)
    except SystemExit:
        if WORKER_DEATHS.left == 0:  # not a signal to the parent: the last worker stopped
            deaths.warning("every worker stopped; exiting")
        raise
    deaths.removeHandler(handler)  # in a worker: Tornado's logging as the application set it
    deaths.propagate = propagate
    deaths.setLevel(level)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    WORKER_DEATHS.forked()
    log_requests(access=False)


STOP_WAIT_SECONDS = 15.0
"""How long the parent told to stop waits for its workers to finish (their drain takes a few seconds)."""
_PID = struct.Struct("=i")
"""A worker's process id in the parent's shared page."""


class WorkerDeaths(logging.Filter):
    """The ``--workers`` parent's line, on stderr, when a worker ends.

    Tornado's ``fork_processes`` says "child 1 (pid 123) killed by signal 9, restarting"; this
    says "worker 1 (pid 123) killed by SIGKILL; restarted" (or "exited with status 3"). A worker
    that obeys SIGTERM or SIGINT exits with status 0 and is not started again: Tornado says
    "child 1 (pid 123) exited normally" (INFO, silent by default); this says "worker 1 (pid 123)
    stopped by SIGTERM; not restarted (1 of 2 left)" — the worker wrote the signal's number, before
    stopping, into a page the parent shares (:meth:`stopped_by`); without one, "exited with status
    0". A worker forked after a restart (:attr:`seen`) knows it is one started again (it prints no
    banner)."""

    KILLED = "child %d (pid %d) killed by signal %d, restarting"
    EXITED = "child %d (pid %d) exited with status %d, restarting"
    STOPPED = "child %d (pid %d) exited normally"

    def __init__(self) -> None:
        super().__init__()
        self.seen = False
        self.workers = 0
        self.left = 0
        """Workers running or to be started again (those that exited with status 0 are not)."""
        self._signals: mmap.mmap | None = None
        self._pids: mmap.mmap | None = None
        self._stopping = False
        self._parent = 0

    def start(self, workers: int) -> None:
        """Before forking ``workers`` processes (in the parent): a shared byte per worker, and room for
        each worker's process id."""
        self.workers = self.left = workers
        self._signals = mmap.mmap(-1, workers)  # anonymous and shared: each worker writes its own byte
        self._pids = mmap.mmap(-1, _PID.size * workers)
        self._parent = os.getpid()

    def forked(self) -> None:
        """In a worker just forked (or forked again): write its process id where the parent reads it."""
        task = tornado.process.task_id()
        if self._pids is not None and task is not None:
            _PID.pack_into(self._pids, task * _PID.size, os.getpid())

    def stop_workers(self, signum: int) -> None:
        """In the parent told to stop by ``signum``: pass it on to each worker, and wait until they have
        stopped (each drains its calls, as one sent the signal does, and says nothing); a second signal
        meanwhile leaves at once."""
        if self._pids is None or self._stopping or os.getpid() != self._parent:  # a worker not yet serving
            return
        self._stopping = True
        told: set[int] = set()
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        while time.monotonic() < deadline:  # bounded: a stuck worker still sees the parent gone
            # The page is read again each turn: a worker forked just now writes its id a moment later,
            # and is told then (read once, such a worker was left serving when the parent exited).
            for (pid,) in _PID.iter_unpack(self._pids):
                if pid > 0 and pid not in told:
                    told.add(pid)
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signum)
            try:
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            except ChildProcessError:
                return  # every worker has stopped
            time.sleep(0.02)

    def stopped_by(self, signum: int) -> None:
        """In a worker told to stop by ``signum``: say so to the parent (nothing outside a worker)."""
        task = tornado.process.task_id()
        if self._signals is not None and task is not None and 0 < signum < 256:
            self._signals[task] = signum

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not (isinstance(args, tuple) and len(args) in (2, 3)):
            return record.levelno >= logging.WARNING
        if record.msg == self.STOPPED and len(args) == 2:
            worker, pid = args
            self.left -= 1
            how = "exited with status 0"
            if self._signals is not None and isinstance(worker, int) and 0 <= worker < len(self._signals):
                signum = self._signals[worker]
                with contextlib.suppress(ValueError):
                    how = f"stopped by {signal.Signals(signum).name}" if signum else how
            record.msg = "worker %s (pid %s) %s; not restarted (%d of %d left)"
            record.args = (worker, pid, how, self.left, self.workers)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        elif record.msg in (self.KILLED, self.EXITED) and len(args) == 3:
            self.seen = True
            run_cleanups()  # (in the parent, the worker reaped, before it is forked again)
            worker, pid, code = args
            if self._signals is not None and isinstance(worker, int) and 0 <= worker < len(self._signals):
                self._signals[worker] = 0  # the worker started again has not been told to stop
            if record.msg == self.KILLED and isinstance(code, int):
                with contextlib.suppress(ValueError):
                    code = signal.Signals(code).name
                record.msg, record.args = "worker %s (pid %s) killed by %s; restarted", (worker, pid, code)
            else:
                record.msg, record.args = "worker %s (pid %s) exited with status %s; restarted", (worker, pid, code)
        return record.levelno >= logging.WARNING  # not Tornado's "Starting 2 processes"


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
