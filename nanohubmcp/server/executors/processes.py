"""``job_executor="processes"``: jobs on a process pool, for CPU-bound pure-Python tools.

The function and its arguments are pickled to a worker process (``concurrent.futures``'
``ProcessPoolExecutor`` with the platform's start method), so the function must be defined at
module level and its arguments and result picklable — a call that is not fails with a message
saying so. ``ctx`` there is a :class:`~.remote.RemoteContext`: progress and log messages come
back over a ``multiprocessing`` manager queue, cancellation goes out as a manager ``Event``.
Nothing is started until the first job.

Every process the pool or its manager starts first runs :func:`forked_worker_setup`: with the
``fork`` start method (Linux's default) a worker is a copy of the server, so it would keep the
server's listening socket and signal handlers and outlive a server killed with ``kill -9``,
holding its port. The setup closes inherited listening sockets, restores the default
``SIGTERM`` (``SIGINT`` is left to the server) and exits the worker when its parent is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import signal
import socket
import stat
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.managers import SyncManager
from typing import TYPE_CHECKING, Any

from ...errors import ToolError
from .base import JobExecutor
from .remote import deliver, job_trace, remote_context, run_remote

if TYPE_CHECKING:
    from queue import Queue

    from ..calls.context import Context
    from ..jobs.service import Job


PARENT_CHECK_SECONDS = 0.5
"""How often a worker looks whether its parent (the server) is still alive."""


def forked_worker_setup() -> None:
    """First thing in a worker (or the manager) process: drop what it inherited from the server.

    Closes the listening sockets a forked copy inherits (a server killed with ``kill -9`` would
    otherwise leave its port held by orphans that accept nothing), restores the default
    ``SIGTERM`` and ignores ``SIGINT`` (the server stops its workers), and starts a daemon thread
    that ends the process once its parent has gone. Never raises: a pool whose initializer
    fails is broken for good.
    """
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _close_listening_sockets()
        parent = os.getppid()
        threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True,
                         name="nanohubmcp-worker-parent-watch").start()
    except Exception:  # best effort: the worker still runs jobs
        pass


def _close_listening_sockets() -> None:
    accepting = getattr(socket, "SO_ACCEPTCONN", None)
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: not Linux, where ``fork`` is not the default start method
        return
    if accepting is None:
        return
    for fd in fds:
        if fd < 3:
            continue
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            sock = socket.socket(fileno=fd)
        except OSError:
            continue
        try:
            listening = sock.getsockopt(socket.SOL_SOCKET, accepting)
        except OSError:
            listening = 0
        if listening:
            sock.close()
        else:
            sock.detach()


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


class QueueChannel:
    """A job's channel through a manager queue (shared by all jobs) and its own manager Event."""

    def __init__(self, queue: Queue[tuple[str, str, list[Any]]], event: threading.Event) -> None:
        self._queue = queue
        self._event = event

    def send(self, job_id: str, kind: str, payload: list[Any]) -> None:
        self._queue.put((job_id, kind, payload))

    def cancelled(self) -> bool:
        return bool(self._event.is_set())


class ProcessJobExecutor(JobExecutor):
    """Jobs on ``workers`` processes."""

    name = "processes"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._manager: Any = None
        self._queue: Any = None
        self._targets: dict[str, tuple[Any, Any]] = {}
        self._flushes: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def _start(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                context = multiprocessing.get_context()
                self._manager = SyncManager(ctx=context)
                self._manager.start(forked_worker_setup)
                self._queue = self._manager.Queue()
                self._pool = ProcessPoolExecutor(self.workers, mp_context=context, initializer=forked_worker_setup)
                threading.Thread(
                    target=self._listen, args=(self._queue,), daemon=True, name="nanohubmcp-process-jobs"
                ).start()
            return self._pool

    def _listen(self, queue: Queue[tuple[str, str, list[Any]]]) -> None:
        while True:
            try:
                item = queue.get()
            except (EOFError, OSError):  # the manager stopped
                return
            if item is None:
                return
            job_id, kind, payload = item
            if kind == "flushed":  # everything the job sent before its result is delivered
                self._flushes.pop(job_id, threading.Event()).set()
                continue
            target = self._targets.get(job_id)
            if target is not None:
                deliver(target[0], target[1], job_id, kind, payload)

    async def call(
        self,
        job: Job,
        fn: Callable[..., Any],
        kwargs: dict[str, Any],
        *,
        context: Context | None,
        context_param: str | None,
        is_coroutine: bool,
    ) -> Any:
        loop = asyncio.get_running_loop()
        pool = self._pool if self._pool is not None else await loop.run_in_executor(None, self._start)
        event = None
        if context_param:  # only a ctx talks back: its cancel flag and the flush cost the manager a round trip each
            event = await loop.run_in_executor(None, self._manager.Event)
            kwargs = {
                **kwargs,
                context_param: remote_context(job, context, QueueChannel(self._queue, event), self.name),
            }
        try:
            pickle.dumps((fn, kwargs))
        except Exception as exc:  # PicklingError, AttributeError (a local function), TypeError (a lock)
            raise ToolError(
                f"tool '{job.tool}' cannot run on the 'processes' executor: its function or arguments cannot be "
                f"pickled ({exc}). Define the function at module level with picklable arguments, or use "
                "job_executor='threads' (or 'dask', which pickles with cloudpickle)"
            ) from None
        self._targets[job.id] = (context, job.store)
        future = pool.submit(run_remote, fn, kwargs, is_coroutine, job_trace(job))
        try:
            value = await asyncio.wrap_future(future)
            if event is not None:
                await loop.run_in_executor(None, self._flush, job.id)
            return value
        except asyncio.CancelledError:
            if event is not None:
                event.set()
            future.cancel()
            raise
        finally:
            self._targets.pop(job.id, None)

    def _flush(self, job_id: str) -> None:
        # The queue is first in, first out: once our marker comes through, so has every message
        # the job put before it returned.
        flushed = self._flushes[job_id] = threading.Event()
        self._queue.put((job_id, "flushed", None))
        flushed.wait(10)

    def close(self) -> None:
        with self._lock:
            pool, manager, queue = self._pool, self._manager, self._queue
            self._pool = self._manager = self._queue = None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        if queue is not None:
            with contextlib.suppress(EOFError, OSError):
                queue.put(None)
        if manager is not None:
            manager.shutdown()
