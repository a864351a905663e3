"""The forked workers of ``nanohubmcp run --workers N``: the parent forks them and starts one
again when it dies (:func:`fork_workers`), saying on stderr which died and how
(:class:`WorkerDeaths`); each worker's own log lines name its process (:func:`log_requests`).

The runner (:mod:`.runner`) binds the port, calls :func:`fork_workers`, and serves in each worker.
"""

from __future__ import annotations

import contextlib
import logging
import signal
from typing import Any

import tornado.process


def fork_workers(workers: int) -> None:
    """Fork ``workers`` processes (Tornado's ``fork_processes``); returns in each worker.

    The parent never returns: it starts a worker again when one dies, and exits when
    SIGINT/SIGTERM reaches it (its workers see it gone and stop). Each worker logs the shared
    state store's outages with its process id; every request too only when asked
    (:func:`log_requests`, ``nanohubmcp run --access-log``): a line per request costs about 6 %
    of a small call's CPU (bench/scaleout.md).
    """

    def leave(signum: int, frame: Any) -> None:
        raise SystemExit(0)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, leave)
    deaths = logging.getLogger("tornado.general")  # where fork_processes says a worker died
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("nanohubmcp: %(message)s"))
    handler.addFilter(WORKER_DEATHS)
    deaths.addHandler(handler)
    propagate, deaths.propagate = deaths.propagate, False
    tornado.process.fork_processes(workers, max_restarts=1000)
    deaths.removeHandler(handler)  # in a worker: Tornado's logging as the application set it
    deaths.propagate = propagate
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    log_requests(access=False)


class WorkerDeaths(logging.Filter):
    """The ``--workers`` parent's line when a worker dies and is started again, on stderr: Tornado's
    ``fork_processes`` says "child 1 (pid 123) killed by signal 9, restarting"; this says
    "worker 1 (pid 123) killed by SIGKILL; restarted" (or "exited with status 3"). A worker forked
    after it (:attr:`seen`) knows it is one started again (it prints no banner)."""

    KILLED = "child %d (pid %d) killed by signal %d, restarting"
    EXITED = "child %d (pid %d) exited with status %d, restarting"

    def __init__(self) -> None:
        super().__init__()
        self.seen = False

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if record.msg in (self.KILLED, self.EXITED) and isinstance(args, tuple) and len(args) == 3:
            self.seen = True
            worker, pid, code = args
            if record.msg == self.KILLED and isinstance(code, int):
                with contextlib.suppress(ValueError):
                    code = signal.Signals(code).name
                record.msg, record.args = "worker %s (pid %s) killed by %s; restarted", (worker, pid, code)
            else:
                record.msg, record.args = "worker %s (pid %s) exited with status %s; restarted", (worker, pid, code)
        return record.levelno >= logging.WARNING  # not "exited normally" (a worker stopped by SIGTERM)


WORKER_DEATHS = WorkerDeaths()


WORKER_FORMAT = "[worker pid %(process)d] %(name)s %(levelname)s %(message)s"


def log_requests(*, access: bool = True) -> None:
    """Log on stderr, each line naming the serving process (``[worker pid N] nanohubmcp.access ...``):
    the shared state store's outages, and with ``access`` every request. A logger that already
    has a handler is left as it is."""
    wanted = [("nanohubmcp.state", logging.INFO)]
    if access:
        wanted.append(("nanohubmcp.access", logging.DEBUG))
    handler: logging.Handler | None = None
    for name, level in wanted:
        logger = logging.getLogger(name)
        if logger.handlers:
            continue
        if handler is None:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter(WORKER_FORMAT))
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False
