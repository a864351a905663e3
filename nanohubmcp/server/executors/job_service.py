"""``JobService``: the job service as one object, built by the core's constructor from its collaborators.

What it holds: the registry (a job's tool by name), the job executors (:class:`~.runners.JobRunners`), the job
store and the done jobs' kept data (made at their first use, :class:`~..first_use.FirstUse`'s: a server that
never runs a job opens no SQLite file and starts no job thread), and what a job's run reads
(:class:`~..calls.call_parts.CallParts`: the worker pool, the time limit, the results' options and store, the loop
the server serves on; the core's own object of them, never the core). It is the core's one door to the job store
and the executors (``core.job_service.jobs``, ``.runners``: the core keeps no other). The method handlers of jobs
and tasks (``handlers/tools``, ``handlers/tasks``, ``stateless/*``) read it off the core once and hand it on (their
helpers take it, not the core), the job tools are handed it at registration, and the job machinery (:mod:`.service`:
start, finish, hand-over, re-attach) is a set of functions over it, imported with the first job. The handlers and
the job tools use its job operations (:meth:`JobService.job_of` under the store's owner checks, ``tasks_of``,
``cancel``, ``ended``, ``follow``, ``task_for``, ``answer_inputs``) and never name the store; the input requests of
running tasks are its own too (``task_inputs``).

It is also where the core and its job store meet, in two directions. The job store asks the server, through
hooks it is given when made: to follow a job whose function runs on after a stop (:meth:`JobService.hand_over`),
to take back a job of a dead process its executor may still hold (:meth:`JobService.reattach`), and which folders
its executors keep jobs in (:meth:`JobService.folders`). The core, its stop and the testing clients tell the jobs
of sweeps, a session's end, stops and a loop's end (:meth:`JobService.sweep`, :meth:`JobService.session_ended`,
:meth:`JobService.end_run`, :meth:`JobService.process_ending`, :meth:`JobService.loop_ending`), each a no-op while
no job store was made: a store not made holds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Future

    from ..asks.task_inputs import TaskInputs
    from ..calls.call_parts import CallParts
    from ..jobs.far_ends import Report
    from ..jobs.leftovers import Leftovers
    from ..jobs.pages import Position
    from ..jobs.record import Job
    from ..jobs.service import JobStore
    from ..registry.registry import Registry
    from ..wire.principal import Principal
    from ..wire.request import RequestContext
    from .polled_data import PolledData
    from .runners import JobRunners

__all__ = ["JobService", "JobStores"]


class JobStores(Protocol):
    """The job service's parts made at their first use (:class:`~..first_use.FirstUse`)."""

    @property
    def jobs(self) -> JobStore:
        """The job store, made now if it was not."""
        ...

    @property
    def jobs_made(self) -> JobStore | None:
        """The job store if made yet, else None."""
        ...

    @property
    def polled_data(self) -> PolledData:
        """The done jobs' data kept once per job for their MCP answers, made now if it was not."""
        ...

    @property
    def task_inputs(self) -> TaskInputs:
        """The input requests of running tasks, made now if they were not."""
        ...


class JobService:
    """The job service of one server (module docstring).

    Args:
        registry: the server's registry (a job's tool, looked up by name).
        runners: the job executors: the server's, and those its tools name.
        calls: what a job's run reads (:class:`~..calls.call_parts.CallParts`, the core's one object of them).
        stores: the parts made at their first use (the core's ``FirstUse``, built before this service; the core then
            gives it this service's hooks for the job store it makes).
    """

    __slots__ = ("_stores", "calls", "registry", "runners")

    def __init__(self, registry: Registry, runners: JobRunners, calls: CallParts, stores: JobStores) -> None:
        self.registry = registry
        self.runners = runners
        """The job executors (``runner_for``, ``holds_after_restart``, ``outliving``, ``folder_budget``)."""
        self.calls = calls
        """How a job's tool runs and its result is shaped, and the serving loop
        (:class:`~..calls.call_parts.CallParts`)."""
        self._stores = stores

    @property
    def jobs(self) -> JobStore:
        """The job store (made at its first use: the first job, task or poll)."""
        return self._stores.jobs

    @property
    def jobs_made(self) -> JobStore | None:
        """The job store if made yet (a store not made holds nothing to sweep or cancel)."""
        return self._stores.jobs_made

    @property
    def polled_data(self) -> PolledData:
        """The done jobs' data over ``max_inline_bytes`` kept once per job for their MCP answers
        (``get_job_result`` and ``tasks/result`` alike: one link per job)."""
        return self._stores.polled_data

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop the server serves on (None before it serves)."""
        return self.calls.loop

    @property
    def task_inputs(self) -> TaskInputs:
        """The input requests of running tasks (the 2026-07-28 tasks extension; made at its first use)."""
        return self._stores.task_inputs

    # -- the job operations of the handlers and the job tools (under the job store's owner checks) ------
    def job_of(self, job_id: object, owner: str | None, principal: Principal | None) -> Job:
        """The job ``job_id`` as its caller may see it: ``owner`` the caller's session id (None: read by id alone,
        as the 2026-07-28 tasks are), ``principal`` the caller's (:meth:`JobStore.get <..jobs.service.JobStore.get>`).

        Raises:
            UnknownComponent: no such job for this caller (a wrong id, expired, another principal's or session's).
        """
        return self.jobs.get(job_id, owner, principal)

    def tasks_of(self, owner: str | None, principal: Principal | None, *, after: Position | None,
                 count: int | None) -> tuple[list[Job], bool]:
        """The live tasks of the session ``owner`` (never anyone else's), oldest first, at most ``count`` after the
        position ``after``, and whether more follow (:meth:`JobStore.owned_by <..jobs.service.JobStore.owned_by>`)."""
        return self.jobs.owned_by(owner, principal=principal, tasks_only=True, after=after, count=count)

    def cancel(self, job: Job, reason: str = "cancelled by the client") -> Job:
        """Cancel ``job`` (from :meth:`job_of`) wherever it runs; the job as it is now, ``cancelled`` or the end it
        reached first (:meth:`JobStore.cancel <..jobs.service.JobStore.cancel>`)."""
        return self.jobs.cancel(job, reason)

    async def ended(self, job: Job, request: RequestContext) -> Job:
        """``job`` (from :meth:`job_of`) once it ended, wherever it runs, or as it is when ``request`` was cancelled
        (:meth:`JobStore.ended <..jobs.service.JobStore.ended>`)."""
        return await self.jobs.ended(job, request)

    async def follow(self, job: Job, report: Report, request: RequestContext) -> None:
        """``report(job)`` each time ``job`` may have changed, wherever it runs, until it ended or ``request`` is
        cancelled (:meth:`JobStore.follow <..jobs.service.JobStore.follow>`)."""
        await self.jobs.follow(job, report, request)

    def task_for(self, request: RequestContext, tool: str, message: str | None) -> Job:
        """A task's job for ``request``'s running call of ``tool``, going on as a task (2026-07-28
        ``ctx.start_task()``), in no session, ``message`` its first status message.

        Raises:
            JobLimitReached: the job store is full (in total or for this caller).
        """
        return self.jobs.create(tool, None, principal=request.principal, as_task=True, message=message,
                                provenance_id=request.provenance_id)

    async def answer_inputs(self, job: Job, responses: dict[str, Any]) -> None:
        """Hand ``responses`` (``tasks/update``'s) to the outstanding input requests of ``job``, a task: checked
        against them first (:func:`~..asks.task_inputs.checked_answers`: a wrong one is -32602 and none is handed
        on), then delivered here, or to the process that runs it."""
        from ..asks.task_inputs import checked_answers

        if self.jobs.runs_here(job):
            inputs = self.task_inputs
            await checked_answers(inputs.outstanding(job.id), responses)
            inputs.deliver(job, responses)
        else:  # another process runs it: checked here against the requests stored with it, delivered there
            self.jobs.answer(job, await checked_answers(job.input_requests or {}, responses))

    # -- the job store's hooks ----------------------------------------------------------------
    def reattach(self, job: Job) -> bool | None:
        """Follow ``job``, a job of a dead process its executor may still hold (Dask): True once followed,
        False when it cannot be, None when not serving yet (:func:`.service.reattach`)."""
        from . import service as job_service  # the job machinery: imported with the first job

        return job_service.reattach(self, job)

    def hand_over(self, job: Job) -> bool:
        """Keep following ``job`` at a stop when its function runs on in this process
        (:func:`.service.hand_over`); False when it does not run on."""
        from . import service as job_service

        return job_service.hand_over(self, job)

    def folders(self) -> Leftovers:
        """The folders the executors keep jobs in, by the registry's tools (asked with the first job)."""
        from .job_folders import JobFolders

        return JobFolders(self.runners, self.registry.tools.values)

    # -- what the core tells the jobs --------------------------------------------------------
    def sweep(self) -> None:
        """Forget expired jobs, and renew this process's charges of the shared folder budget (the runner's periodic
        sweep, every minute)."""
        self.runners.folder_budget.renew()
        jobs = self.jobs_made
        if jobs is not None:
            jobs.sweep()

    def session_ended(self, session_id: str) -> None:
        """The session ``session_id``, held here, ended: its jobs are read by their id from now on."""
        jobs = self.jobs_made
        if jobs is not None:
            jobs.session_ended(session_id)

    def end_run(self) -> None:
        """The server stops: settle every running job (:meth:`JobStore.end_run <..jobs.service.JobStore.end_run>`)."""
        jobs = self.jobs_made
        if jobs is not None:
            jobs.end_run()

    def process_ending(self) -> int:
        """The process ends after the server stopped: tell the jobs whose function still runs in it to cancel
        (:meth:`JobStore.process_ending <..jobs.service.JobStore.process_ending>`); returns how many were told."""
        jobs = self.jobs_made
        return jobs.process_ending() if jobs is not None else 0

    def process_ended(self) -> int:
        """The process ends now without waiting for the jobs whose function still runs in it (a notebook kernel's
        shutdown): store each one's end as cut short, now (:meth:`JobStore.process_ended
        <..jobs.service.JobStore.process_ended>`); returns how many."""
        jobs = self.jobs_made
        return jobs.process_ended() if jobs is not None else 0

    def settling(self) -> list[Future[None]]:
        """The jobs handed over at the stop whose end is not stored yet (:meth:`JobStore.settling
        <..jobs.service.JobStore.settling>`), and the job processes the stop ended not yet gone with their
        clean-ups (:meth:`JobRunners.ending <.runners.JobRunners.ending>`: a Rappture program they
        left running is killed then): a process that exits waits for them."""
        jobs = self.jobs_made
        return [*(jobs.settling() if jobs is not None else []), *self.runners.ending()]

    def work(self) -> set[Future[Any]]:
        """The running functions of jobs in this process: those handed over at the stop and those whose client
        cancelled them but which run on (a function that does not look), what of a stopped server's pool work is a
        job's, not a tool call's (trial53 F1: a cancelled job was named a "tool call")."""
        if self.jobs_made is None:
            return set()
        return self.runners.running_here()

    def carry_over(self, job: Job) -> bool:
        """Follow ``job`` on the server's loop from now on when its executor can
        (:func:`.service.carry_over`)."""
        from . import service as job_service

        return job_service.carry_over(self, job)

    def loop_ending(self, loop: asyncio.AbstractEventLoop,
                    started: Callable[[Job], bool] | None = None, *, ends: bool = True) -> list[asyncio.Task[Any]]:
        """``loop``, a testing client's (``in_memory``, ``MemoryClient``), ends while the server serves on
        another: the jobs started there (those ``started`` accepts; None: all) are settled (:meth:`JobStore.loop_ending
        <..jobs.service.JobStore.loop_ending>`: handed over, followed on the server's loop, or failed when ``ends``,
        else left on ``loop``); returns their tasks, cancelled. Called on ``loop``."""
        jobs = self.jobs_made
        return jobs.loop_ending(loop, carry_over=self.carry_over, started=started, ends=ends) \
            if jobs is not None else []
