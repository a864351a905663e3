"""Job executors: where ``@async_tool`` jobs run.

``MCPServer(job_executor=...)`` (``%%mcp_tool --async --executor ...`` in a notebook,
``c.NanohubMCP.job_executor``) takes one of:

- ``"threads"`` (default): a thread pool in the server process (``job_workers`` threads);
- ``"processes"``: a process of its own per job (at most ``job_workers``, and no more than the
  CPUs, at a time), for CPU-bound pure-Python tools held back by the GIL; cancelling a job ends
  its process. The function must be importable (defined at module level) and its arguments and
  result picklable;
- ``"dask"``: a ``dask.distributed`` cluster — ``dask_address=`` or ``DASK_SCHEDULER_ADDRESS``,
  else a ``LocalCluster`` started on first use and closed when the server stops. The function
  runs on a worker (pickled with cloudpickle, as Dask does). A job keeps running on the cluster
  when the server stops; a restarted server with the same state directory takes it back;
- ``"slurm"``: each job is a Slurm batch job (submitted with submitit), on the cluster the
  server's machine submits to; jobs outlive the server (:mod:`.slurm`);
- ``"submit"``: each job runs nanoHUB's ``submit`` command, to a venue or ``--local``; the tool's
  function returns the run to make (a ``SubmitRun``); jobs outlive the server (:mod:`.submit`);
- an instance of :class:`JobExecutor` (a subclass of your own).

``executor_options=`` (of the server, keyed by executor name or for its ``job_executor``; of one
tool, for its executor) configures an executor: Slurm's partition and time, a venue... Each
executor lists the options it takes in ``OPTIONS``; others are refused when the server or the
tool is made.

In the ``processes`` and ``dask`` executors the tool's ``ctx`` is a stand-in that carries
``report_progress``, the log methods and ``is_cancelled`` back to the server (and its client);
requests to the client (elicitation, sampling, roots) are refused there.

The interface (for an executor of your own, e.g. one that submits to a batch system): subclass
:class:`JobExecutor`, set ``name``, and implement :meth:`JobExecutor.call`; implement
:meth:`JobExecutor.reattach` and set ``survives_restart`` if your jobs outlive the server, and
``OPTIONS`` with :meth:`JobExecutor.configure` if it takes options. A batch system (PBS, LSF,
HTCondor) is a page of code on :mod:`.job_files`: ``call`` makes the job's folder, pickles the
call for :func:`.job_side.run_in_job`, submits a script that runs it (``qsub``/``bsub``), stores
the batch id with ``job.store.set_executor_ref`` and then, until the result file appears, hands
on the folder's events (:class:`.job_files.EventTail`) and watches the batch system's state
(``qstat``/``bjobs``); on ``asyncio.CancelledError`` it calls ``qdel``/``bkill``; ``reattach``
follows the same way from the stored reference. :mod:`.slurm` is that page for Slurm.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from ...errors import ConfigurationError
from ...protocol.message_values import shown_value
from ..calls.workers import WorkerPool
from .base import JobExecutor

if TYPE_CHECKING:
    from ..calls.context import Context
    from ..jobs.fair import FairTurns
    from ..jobs.service import Job

__all__ = ["EXECUTORS", "JobExecutor", "ThreadJobExecutor", "check_options", "make_executor"]

EXECUTORS = ("threads", "processes", "dask", "slurm", "submit")

JOB_EXECUTOR = "job_executor"
"""``Tool.extra`` key of an ``@async_tool``'s own executor (``executor=``), if any."""
JOB_OPTIONS = "job_executor_options"
"""``Tool.extra`` key of an ``@async_tool``'s own ``executor_options``, if any."""


class ThreadJobExecutor(JobExecutor):
    """Jobs on a thread pool of the server process (coroutine functions on its event loop).

    A sync function waits for a turn at the pool (:class:`~..jobs.fair.FairTurns`: fairly over
    the jobs' owners, ``workers`` at a time) and holds it until it returns; a coroutine
    function holds no thread and starts at once.
    """

    name = "threads"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: WorkerPool | None = None
        self._turns: FairTurns | None = None
        self._running: dict[str, Future[Any]] = {}  # job id -> its function's pool future

    @property
    def pool(self) -> WorkerPool:
        """The pool, created on first use (daemon threads: a job that never returns cannot keep a
        stopped server's process alive)."""
        if self._pool is None:
            self._pool = WorkerPool(self.workers, quick_workers=0, name="nanohubmcp-job")
        return self._pool

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
        from ..calls.invoke import call_function  # with the first job: a first answer runs no function

        if is_coroutine:
            return await call_function(fn, kwargs, is_coroutine=True, executor=self.pool, timeout=None,
                                       what=f"tool '{job.tool}'")
        if self._turns is None:
            from ..jobs.fair import FairTurns  # with the first job: a served script's first answer needs no job code

            self._turns = FairTurns(self.workers)
        turns = self._turns
        await turns.take(job)
        loop = asyncio.get_running_loop()
        submitted: list[Future[Any]] = []

        def ended(_: Future[Any]) -> None:  # on the worker thread (or here, when it never ran)
            self._running.pop(job.id, None)
            with contextlib.suppress(RuntimeError):  # the loop closed with its server
                loop.call_soon_threadsafe(turns.give_back, job)

        def track(work: Future[Any]) -> None:
            submitted.append(work)
            self._running[job.id] = work
            work.add_done_callback(ended)  # the turn is held until the function returns

        def on_worker(**arguments: Any) -> Any:  # the job's record names this thread (same process)
            job.where = {"thread": threading.current_thread().name}
            return fn(**arguments)

        try:
            return await call_function(
                on_worker,
                kwargs,
                is_coroutine=False,
                executor=self.pool,
                timeout=None,
                what=f"tool '{job.tool}'",
                on_submit=track,
            )
        finally:
            if not submitted:
                turns.give_back(job)

    def outliving(self, job: Job) -> Future[Any] | None:
        """A sync function already running on a worker (the worker thread outlives the server;
        a queued one is dropped with the pool)."""
        work = self._running.get(job.id)
        return work if work is not None and work.running() else None

    def running_here(self) -> set[Future[Any]]:
        """The sync functions running on a worker now, their jobs cancelled or not."""
        return {work for work in list(self._running.values()) if work.running()}

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None
        self._turns = None


def make_executor(
    spec: object,
    *,
    workers: int,
    dask_address: str | None = None,
    options: dict[str, Any] | None = None,
    state_dir: Callable[[], str] | str | None = None,
) -> JobExecutor:
    """The executor named by ``spec`` with ``options`` (nothing is started yet).

    ``state_dir`` is the server's state directory (or a callable returning it), under which
    batch executors keep their job folders unless told otherwise.

    Raises:
        ConfigurationError: an unknown name, an option the executor does not take, or the library
            the executor needs is not installed (checked here, without importing it: a server
            configured for Dask or Slurm fails when it is made, not at its first job).
    """
    needed = NEEDS.get(spec) if isinstance(spec, str) else None
    if needed is not None:
        import importlib.util

        if importlib.util.find_spec(needed[0]) is None:
            raise ConfigurationError(f"job_executor={spec!r} needs {needed[0]}: pip install 'nanohub-mcp[{needed[1]}]'")
    return _made(spec, workers, dask_address, state_dir).configure(dict(options or {}))


def check_options(spec: str | None, options: dict[str, Any]) -> None:
    """Refuse ``options`` the executor named ``spec`` does not take (or values it refuses), as a server
    does when a tool is registered, without making its runner or needing its library: an exported
    notebook's script is checked where it is written, not where it runs.

    Raises:
        ConfigurationError: as :func:`make_executor` says it.
    """
    _made(spec, 1, None, None).configure(dict(options))


NEEDS = {"dask": ("distributed", "dask"), "slurm": ("submitit", "slurm")}
"""The library each executor needs (its import name and the extra that installs it)."""


def _made(
    spec: object, workers: int, dask_address: str | None, state_dir: Callable[[], str] | str | None
) -> JobExecutor:
    if isinstance(spec, JobExecutor):
        return spec
    if spec in (None, "threads"):
        return ThreadJobExecutor(workers)
    if spec == "processes":
        from .processes import ProcessJobExecutor

        return ProcessJobExecutor(min(workers, os.cpu_count() or 1))
    if spec == "dask":
        from .dask_cluster import DaskJobExecutor

        return DaskJobExecutor(dask_address)
    if spec == "slurm":
        from .slurm import SlurmJobExecutor

        return SlurmJobExecutor(state_dir)
    if spec == "submit":
        from .submit import SubmitJobExecutor

        return SubmitJobExecutor(state_dir)
    raise ConfigurationError(
        f"job_executor must be one of {', '.join(EXECUTORS)} or a JobExecutor instance, not {shown_value(spec)}"
    )
