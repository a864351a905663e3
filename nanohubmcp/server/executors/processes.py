"""``job_executor="processes"``: every job in a process of its own, for CPU-bound pure-Python tools.

A job runs in a new process (:class:`~.job_process.JobProcess`; ``fork`` on Linux, else the
platform's start method), at most ``workers`` at a time: the others wait for a slot, fairly over
their owners (:class:`~..jobs.fair.FairTurns`). The
function and its arguments must be picklable (defined at module level, picklable arguments and
result) — a call that is not fails with a message saying so, on every platform, though ``fork``
itself pickles nothing on the way in. ``ctx`` there is a :class:`~.remote.RemoteContext`:
progress and log messages come back over a ``multiprocessing`` manager queue, cancellation goes
out as a manager ``Event``; the manager is started by the first job that takes a ``ctx``.

Cancelling a job ends its process (:meth:`~.job_process.JobProcess.stop`: the cancel flag, then
``SIGTERM``, then ``SIGKILL``) and frees its slot once the process is gone; no other job is
touched. A job that answered frees its slot at once (its process ends by itself). A stopping
server ends the processes of its running jobs the same way (those jobs fail: "the server
stopped while this job ran"); every process the executor forks also ends by itself when the
server is killed (:mod:`.forked`).

Once a job's process ended, however it ended, the server runs the clean-ups the sources of tools
registered for a forked process's end (:mod:`..wire.worker_cleanups`): a Rappture program or a Sim2L
kernel runs in a session of its own, outside the job's process group, so a job's process killed
mid-run (cancelled, the server stopping) leaves it running; the sweep of that process's run folder
kills it, and removes the folder a job's process leaves even when it ended by itself (it runs no
exit handler). A process that exits waits for those ends, within its exit grace (:meth:`ending`).

A process per job rather than a ``concurrent.futures.ProcessPoolExecutor``: a pool cannot take
back a running call (cancelling a job left its worker running the function, for ever for a loop
that never looks at ``ctx.is_cancelled()``, and killing the worker breaks the pool and every
other job in it); a fresh ``fork`` also runs the function a notebook defines now, where a pool's
older worker unpickles the one its copy of ``__main__`` had.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import multiprocessing
import os
import pickle
import secrets
import sys
import tempfile
import threading
from collections.abc import Callable
from multiprocessing.managers import SyncManager
from typing import TYPE_CHECKING, Any

from ...errors import ToolError
from ..jobs.fair import FairTurns
from ..wire.worker_cleanups import run_cleanups
from .base import JobExecutor
from .forked import forked_worker_setup
from .job_process import FORK_LOCK, JobProcess
from .remote import deliver, job_trace, remote_context

if TYPE_CHECKING:
    from queue import Queue

    from ..calls.context import Context
    from ..jobs.service import Job


log = logging.getLogger(__name__)


class QueueChannel:
    """A job's channel through a manager queue (shared by all jobs) and its own manager Event."""

    def __init__(self, queue: Queue[tuple[str, str, list[Any]]], event: threading.Event) -> None:
        self._queue = queue
        self._event = event

    def send(self, job_id: str, kind: str, payload: list[Any]) -> None:
        self._queue.put((job_id, kind, payload))

    def cancelled(self) -> bool:
        return bool(self._event.is_set())


UNIX_PATH_MOST = 107
"""The longest AF_UNIX socket path in bytes (``sun_path`` is 108 bytes on Linux, its last a NUL)."""

_DEFAULT_SOCKET_TAIL = len("/pymp-XXXXXXXX/listener-XXXXXXXX")
"""What multiprocessing adds to the temporary directory for a manager's socket file."""


def manager_address() -> str | None:
    """Where the jobs' manager process listens: None (multiprocessing's choice: a socket file in a private folder
    of the temporary directory) when that path fits AF_UNIX's limit; else, on Linux, a socket in the abstract
    namespace (no file; as on any address, the manager admits only a process that proves the server's authkey).
    A ``TMPDIR`` over ~75 bytes made the manager fail to start ("AF_UNIX path too long") and every job fail with a
    bare EOFError."""
    if sys.platform != "linux":
        return None
    if len(os.fsencode(tempfile.gettempdir())) + _DEFAULT_SOCKET_TAIL <= UNIX_PATH_MOST:
        return None
    return "\0nanohubmcp-jobs-" + secrets.token_hex(16)


class ProcessJobExecutor(JobExecutor):
    """Jobs in processes of their own, ``workers`` at a time."""

    name = "processes"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        # ``fork`` on Linux whatever the default (Python 3.14 made it ``forkserver``): a job is a
        # copy of the server as it is now, so a notebook's functions are found, as defined now.
        self._context = multiprocessing.get_context("fork" if sys.platform == "linux" else None)
        self._turns: FairTurns | None = None
        self._running: dict[str, JobProcess] = {}
        self._alive: set[JobProcess] = set()  # until gone: their process ended and its clean-ups ran
        self._manager: Any = None
        self._queue: Any = None
        self._targets: dict[str, tuple[Any, Any]] = {}
        self._flushes: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def _start_manager(self) -> Any:
        with self._lock:
            if self._manager is None:
                manager = SyncManager(address=manager_address(), ctx=self._context)
                with FORK_LOCK:
                    manager.start(forked_worker_setup)
                self._queue = manager.Queue()
                self._manager = manager
                threading.Thread(
                    target=self._listen, args=(self._queue,), daemon=True, name="nanohubmcp-process-jobs"
                ).start()
            return self._manager

    def _new_event(self) -> tuple[Any, Any]:
        """A job's cancel flag from the manager and the manager's message queue; a manager process
        that died (killed) is replaced once, so later jobs with ``ctx`` run again."""
        manager = self._start_manager()
        try:
            return manager.Event(), self._queue
        except (OSError, EOFError):
            log.warning("the processes executor's manager process is gone; starting a new one")
            with self._lock:
                if self._manager is manager:
                    self._manager = self._queue = None
            manager = self._start_manager()
            return manager.Event(), self._queue

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
            self._deliver(job_id, kind, payload)

    def _deliver(self, job_id: str, kind: str, payload: list[Any]) -> None:
        """A message of a job's function (over the manager's queue, or its tqdm bars' over its pipe) to its call."""
        target = self._targets.get(job_id)
        if target is not None:
            try:
                deliver(target[0], target[1], job_id, kind, payload)
            except Exception:  # one job's bad message must not stop the channel every job shares, nor its answer
                log.exception("could not deliver a %s message of job %s", kind, job_id)

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
        event = None
        if context_param:  # only a ctx talks back: the manager, its cancel flag and the flush are for it alone
            event, queue = await loop.run_in_executor(None, self._new_event)
            kwargs = {
                **kwargs,
                context_param: remote_context(job, context, QueueChannel(queue, event), self.name),
            }
        try:
            pickle.dumps((fn, kwargs))
        except Exception as exc:  # PicklingError, AttributeError (a local function), TypeError (a lock)
            raise ToolError(
                f"tool '{job.tool}' cannot run on the 'processes' executor: its function or arguments cannot be "
                f"pickled ({exc}). Define the function at module level with picklable arguments, or use "
                "job_executor='threads' (or 'dask', which pickles with cloudpickle)"
            ) from None
        if self._turns is None:
            self._turns = FairTurns(self.workers)
        turns = self._turns
        await turns.take(job)
        run = JobProcess(self._context, f"nanohubmcp-job-{job.id}", functools.partial(self._ended, job, loop, turns),
                         after_exit=run_cleanups, on_forked=functools.partial(_forked, job),
                         on_message=functools.partial(self._deliver, job.id))
        self._alive.add(run)
        run.gone.add_done_callback(lambda _: self._alive.discard(run))
        self._targets[job.id] = (context, job.store)
        try:
            self._running[job.id] = run
            value = await asyncio.wrap_future(run.start(fn, kwargs, is_coroutine, job_trace(job)))
            if event is not None:
                await loop.run_in_executor(None, self._flush, job.id)
            return value
        except asyncio.CancelledError:
            told = False
            if event is not None:
                # A stopping server closed the executor first (its manager is gone): the process is
                # ended without being told, as close() ends it.
                with contextlib.suppress(OSError, EOFError):
                    event.set()
                    told = True
            run.stop(cooperative=told)
            raise
        finally:
            self._targets.pop(job.id, None)
            if run.pid is not None:  # the job's record names its own process, not the server's
                job.where = run.where or {"pid": run.pid, "thread": None}

    def _ended(self, job: Job, loop: asyncio.AbstractEventLoop, turns: FairTurns, run: JobProcess) -> None:
        # On the job's waiting thread, once its function is done (answered, or its process gone).
        if self._running.get(job.id) is run:
            del self._running[job.id]
        with contextlib.suppress(RuntimeError):  # the loop closed with its server: nobody waits for a slot
            loop.call_soon_threadsafe(turns.give_back, job)

    def _flush(self, job_id: str) -> None:
        # The queue is first in, first out: once our marker comes through, so has every message
        # the job put before it returned.
        flushed = self._flushes[job_id] = threading.Event()
        self._queue.put((job_id, "flushed", None))
        flushed.wait(10)

    def ending(self) -> list[concurrent.futures.Future[None]]:
        """The job processes not yet gone with their clean-ups (:attr:`JobProcess.gone
        <.job_process.JobProcess.gone>`): those :meth:`close` ended, and those ending by themselves."""
        return [run.gone for run in list(self._alive) if not run.gone.done()]

    def close(self) -> None:
        """End the processes of running jobs (in the background: :meth:`ending` says when they are gone) and
        stop the manager."""
        with self._lock:
            manager, queue = self._manager, self._queue
            self._manager = self._queue = None
            running, self._running = list(self._running.values()), {}
            self._turns = None
        for run in running:
            run.stop(cooperative=False)
        if queue is not None:
            with contextlib.suppress(EOFError, OSError):
                queue.put(None)
        if manager is not None:
            manager.shutdown()


def _forked(job: Job, pid: int) -> None:
    """``job``'s process exists (on its waiting thread): its record names that process from now on, even when
    a cancel ends the job before its function answered where it ran (trial53 F7: the server's own was named)."""
    if job.where is None:
        job.where = {"pid": pid, "thread": None}
