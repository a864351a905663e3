"""``CoreJobs``: the core's side of its jobs, the one place it meets the job store it makes at first use.

Two directions. The job store asks the server, through hooks it is given when made
(:class:`~.first_use.FirstUse`): to follow a job whose function runs on after a stop (:meth:`CoreJobs.hand_over`),
to take back a job of a dead process its executor may still hold (:meth:`CoreJobs.reattach`), and which folders
its executors keep jobs in (:meth:`CoreJobs.folders`). The core tells the jobs of its sweeps, a session's end and
its stops (:meth:`CoreJobs.sweep`, :meth:`CoreJobs.session_ended`, :meth:`CoreJobs.end_run`,
:meth:`CoreJobs.process_ending`, :meth:`CoreJobs.loop_ending`), each a no-op while no job store was made: a store
not made holds nothing.

It owns neither the job store (:mod:`.jobs.service`) nor the job executors (:class:`~.executors.runners.JobRunners`,
the core's ``job_runners``), and it does not import the job machinery (:mod:`.executors.service`) until a hook
runs: a server's first answer does not load it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Future

    from .executors.service import JobHost
    from .jobs.leftovers import Leftovers
    from .jobs.record import Job
    from .jobs.service import JobStore

__all__ = ["CoreJobs"]


class CoreJobs:
    """What the core and its job store tell each other (module docstring).

    Args:
        host: the core, as the job machinery uses it (its executors, registry and loop).
        made: the job store if made yet (``FirstUse.jobs_made``), else None.
    """

    def __init__(self, host: JobHost, made: Callable[[], JobStore | None]) -> None:
        self._host = host
        self._made = made

    # -- the job store's hooks ----------------------------------------------------------------
    def reattach(self, job: Job) -> bool | None:
        """Follow ``job``, a job of a dead process its executor may still hold (Dask): True once followed,
        False when it cannot be, None when not serving yet (:func:`.executors.service.reattach`)."""
        from .executors import service as job_service  # the job machinery: imported with the first job

        return job_service.reattach(self._host, job)

    def hand_over(self, job: Job) -> bool:
        """Keep following ``job`` at a stop when its function runs on in this process
        (:func:`.executors.service.hand_over`); False when it does not run on."""
        from .executors import service as job_service

        return job_service.hand_over(self._host, job)

    def folders(self) -> Leftovers:
        """The folders the executors keep jobs in, by the registry's tools (asked with the first job)."""
        from .executors.job_folders import JobFolders

        return JobFolders(self._host.job_runners, self._host.registry.tools.values)

    # -- what the core tells the jobs --------------------------------------------------------
    def sweep(self) -> None:
        """Forget expired jobs, and renew this process's charges of the shared folder budget (the runner's periodic
        sweep, every minute)."""
        self._host.job_runners.folder_budget.renew()
        jobs = self._made()
        if jobs is not None:
            jobs.sweep()

    def session_ended(self, session_id: str) -> None:
        """The session ``session_id``, held here, ended: its jobs are read by their id from now on."""
        jobs = self._made()
        if jobs is not None:
            jobs.session_ended(session_id)

    def end_run(self) -> None:
        """The server stops: settle every running job (:meth:`JobStore.end_run <.jobs.service.JobStore.end_run>`)."""
        jobs = self._made()
        if jobs is not None:
            jobs.end_run()

    def process_ending(self) -> int:
        """The process ends after the server stopped: tell the jobs whose function still runs in it to cancel
        (:meth:`JobStore.process_ending <.jobs.service.JobStore.process_ending>`); returns how many were told."""
        jobs = self._made()
        return jobs.process_ending() if jobs is not None else 0

    def process_ended(self) -> int:
        """The process ends now without waiting for the jobs whose function still runs in it (a notebook kernel's
        shutdown): store each one's end as cut short, now (:meth:`JobStore.process_ended
        <.jobs.service.JobStore.process_ended>`); returns how many."""
        jobs = self._made()
        return jobs.process_ended() if jobs is not None else 0

    def settling(self) -> list[Future[None]]:
        """The jobs handed over at the stop whose end is not stored yet (:meth:`JobStore.settling
        <.jobs.service.JobStore.settling>`), and the job processes the stop ended not yet gone with their
        clean-ups (:meth:`JobRunners.ending <.executors.runners.JobRunners.ending>`: a Rappture program they
        left running is killed then): a process that exits waits for them."""
        jobs = self._made()
        return [*(jobs.settling() if jobs is not None else []), *self._host.job_runners.ending()]

    def work(self) -> set[Future[Any]]:
        """The running functions of jobs in this process: those handed over at the stop and those whose client
        cancelled them but which run on (a function that does not look), what of a stopped server's pool work is a
        job's, not a tool call's (trial53 F1: a cancelled job was named a "tool call")."""
        if self._made() is None:
            return set()
        return self._host.job_runners.running_here()

    def carry_over(self, job: Job) -> bool:
        """Follow ``job`` on the server's loop from now on when its executor can
        (:func:`.executors.service.carry_over`)."""
        from .executors import service as job_service

        return job_service.carry_over(self._host, job)

    def loop_ending(self, loop: asyncio.AbstractEventLoop,
                    started: Callable[[Job], bool] | None = None, *, ends: bool = True) -> list[asyncio.Task[Any]]:
        """``loop``, a testing client's (``in_memory``, ``MemoryClient``), ends while the server serves on
        another: the jobs started there (those ``started`` accepts; None: all) are settled (:meth:`JobStore.loop_ending
        <.jobs.service.JobStore.loop_ending>`: handed over, followed on the server's loop, or failed when ``ends``,
        else left on ``loop``); returns their tasks, cancelled. Called on ``loop``."""
        jobs = self._made()
        return jobs.loop_ending(loop, carry_over=self.carry_over, started=started, ends=ends) \
            if jobs is not None else []
