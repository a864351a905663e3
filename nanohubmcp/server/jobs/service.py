"""Jobs: long-running tool calls that answer at once and are polled later.

One machinery serves ``@async_tool`` + ``get_job_result`` and MCP Tasks. Every job is a record
in the job store (:mod:`.stores`): an SQLite file under the server's state directory by
default (:mod:`.state_dir`), or memory only with ``job_store="memory"``. Its result stays
readable — again and again — until it expires, so a lost poll response loses nothing, and a
stored result outlives the server process: after a restart every route answers a finished job
exactly as before; what becomes of a job whose run ended (the server stopped, or its process
died) is :mod:`.settle`'s.

Who may see a job — a principal's jobs are its own; a session's, its own while that session and
the run that started it last; any other, whoever holds its unguessable id — is :mod:`.visibility`'s rule, on
every route and in every era; which run and process a job belongs to, :mod:`.runs`; how its end is
stored once, whichever process ends it first, :mod:`.ends`.

This module holds the jobs themselves: :class:`JobStore` creates, finds, lists, cancels and sweeps them, with the
live jobs of this process in memory over their records in the back end. It composes the records as this process
holds them (:mod:`.stored`: the back end opened at first use, recovered, purged, closed; the operator's listing),
the writes that running jobs make to their records (:mod:`.writes`, through the keeper's methods of
:mod:`.keeping`), what it does about the jobs other processes run (:mod:`.elsewhere`) and what it knows of the
sessions that started them (:mod:`.job_sessions`).

Bounds: at most ``max_jobs`` records in the store and ``max_jobs_per_owner`` per owner (the
principal, else the session, else all sessionless callers together); a result larger than
``max_job_result_bytes`` (as JSON) fails its job with a message saying so. Jobs run on a
bounded executor, never a thread per job.

Source: MCP 2025-11-25, Basic § Utilities § Tasks (statuses, ttl, pollInterval).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from ...errors import JobLimitReached
from ...schema.kept_arguments import kept_arguments
from . import DEFAULT_MAX_JOBS, DEFAULT_MAX_JOBS_PER_OWNER, DEFAULT_MAX_RESULT_BYTES
from .backend import JobBackend
from .elsewhere import Elsewhere
from .job_sessions import JobSessions, keyed
from .keeping import JobKeeping
from .leftovers import Leftovers, Tidy
from .pages import Position, page
from .record import (  # noqa: F401 (re-exported: the job machinery's one import)
    CANCELLED,
    COMPLETED,
    DEFAULT_TTL_SECONDS,
    FAILED,
    INPUT_REQUIRED,
    POLL_INTERVAL_MS,
    PROVENANCE_META,
    QUEUED,
    TERMINAL,
    WORKING,
    Job,
    owner_key,
    queued_elsewhere,
    subject_of,
    task_fields,
)
from .runs import Runs
from .settle import (
    CLIENT_CLOSED,
    SERVER_STOPPED,
    HandOver,
    Reattach,
    cut_short,
    loop_ending,
    process_ended,
    process_ending,
    revive,
    stop_run,
)
from .slot_free import insert
from .stored import StoredJobs
from .visibility import minted, new_job_id, unknown_job, visible
from .writes import JobWrites

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Future

    from ...state.url import StateURL
    from ..wire.principal import Principal
    from ..wire.request import RequestContext
    from .far_ends import Report

__all__ = ["CLIENT_CLOSED", "SERVER_STOPPED", "HandOver", "Job", "JobLimitReached", "JobStore", "Reattach", "cut_short",
           "task_fields"]

log = logging.getLogger("nanohubmcp.jobs")

PURGE_EVERY_SECONDS = 10.0


class JobStore(JobKeeping):
    """The server's jobs: records in a back end, live jobs of this process in memory.

    Args:
        ttl: seconds a finished job stays readable (a task may ask for less).
        name: the server's name (names the default state directory).
        state_dir: the state directory (see :mod:`.state_dir`), or None for the default.
        kind: ``"sqlite"`` (default, kept across restarts) or ``"memory"``.
        shared: a Redis state URL: the records live there instead of the SQLite file, so every
            process of the server, on any machine, reads every job (``kind`` "memory" wins).
        max_jobs / max_jobs_per_owner / max_result_bytes: the bounds (module docstring).
        leftovers: makes the executors' :class:`~.leftovers.Leftovers` (files of jobs kept outside the
            store: dropped when a job's end is stored, when its record expires, and, when the store
            opens, those of jobs it does not hold).
        secret: the ``state_secret`` given, else None: with ``shared``, the key of the digest of principals' subjects
            the records hold instead of the subjects (else the store's own: ``nanohubmcp.state.redis_job_owners``).

    The back end is opened on first use: building a server writes nothing.
    """

    def __init__(self, ttl: float = DEFAULT_TTL_SECONDS, *, name: str = "server",
                 state_dir: str | os.PathLike[str] | None = None, kind: str = "sqlite",
                 max_jobs: int = DEFAULT_MAX_JOBS,
                 max_jobs_per_owner: int = DEFAULT_MAX_JOBS_PER_OWNER,
                 max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES, shared: StateURL | None = None,
                 reattach: Reattach | None = None, hand_over: HandOver | None = None,
                 leftovers: Callable[[], Leftovers] | None = None, secret: str | bytes | None = None) -> None:
        self.ttl = ttl
        self.max_jobs = max_jobs
        self.max_jobs_per_owner = max_jobs_per_owner
        self.max_result_bytes = max_result_bytes
        self.runs = Runs()
        self.reattach = reattach
        self.hand_over = hand_over
        self._tidy = Tidy(leftovers)
        self._live: dict[str, Job] = {}
        self._purged = 0.0
        super().__init__(JobWrites(lambda: self.backend, self._live, process=self.runs.process,
                                   max_result_bytes=max_result_bytes, max_lost=max_jobs, tidy=self._tidy),
                         Elsewhere(lambda: self.backend, self._live, self._revive))
        self._stored = StoredJobs(kind=kind, shared=shared, secret=secret, name=name, state_dir=state_dir,
                                  runs=self.runs, elsewhere=self._elsewhere, tidy=self._tidy, live=self._live,
                                  revive=self._revive, max_jobs=max_jobs)
        self._sessions = JobSessions(self._live, lambda: self.backend, lambda: self._stored.opened,
                                     lambda: self.persistent, self._writes.write)

    @property
    def process(self) -> str:
        """This store's process token: the jobs it runs name it (:mod:`.runs`)."""
        return self.runs.process

    # -- the back end (.stored) -------------------------------------------------------------
    @property
    def directory(self) -> str:
        """The state directory this store uses (or would use)."""
        return self._stored.directory

    @property
    def backend(self) -> JobBackend:
        """The back end, opened on first use (:attr:`.stored.StoredJobs.backend`); a store left by a dead
        process is recovered."""
        return self._stored.backend

    def open(self) -> JobBackend:
        """Open the back end now (recovering the unfinished jobs of dead processes); the same
        back end as :attr:`backend`."""
        return self.backend

    @property
    def persistent(self) -> bool:
        """True when records outlive the process."""
        return self._stored.persistent

    def _matches(self, stored: str, subject: str) -> bool:
        return self.backend.principal_matches(stored, subject)

    def _revive(self, row: dict[str, Any]) -> Job:
        return revive(Job.from_record(row), runs=self.runs, reattach=self.reattach, keeper=self, live=self._live)

    # -- jobs -------------------------------------------------------------------------------
    def create(self, tool: str, owner: str | None, *, principal: Principal | str | None = None,
               arguments: dict[str, Any] | None = None, as_task: bool = False, ttl: float | None = None,
               message: str | None = None, executor: str = "threads", detached: bool = False,
               provenance_id: str | None = None) -> Job:
        """Register and store a new working job (``detached``: its executor keeps it running
        without this process and finds it again by its id; ``provenance_id``: the record of the
        call that starts it, completed when the job ends — in a restarted server too).

        ``arguments`` are kept as a provenance record keeps them (after the run only a record made
        from the job reads them): at most 64 KiB of JSON, larger values replaced by their size and
        digest (:func:`~nanohubmcp.schema.kept_arguments.kept_arguments`); the function is given
        them whole by its caller, never from here.

        Raises:
            JobLimitReached: the store holds ``max_jobs`` jobs, or the owner ``max_jobs_per_owner``.
        """
        self.sweep(force=False)
        owner = keyed(owner)
        job = Job(id=new_job_id(), tool=tool, owner=owner, principal=subject_of(principal),
                  ttl=min(ttl, self.ttl) if ttl else self.ttl, as_task=as_task, status_message=message,
                  executor=executor, arguments=kept_arguments(arguments) if arguments else arguments,
                  runner=self.runs.runner, provenance_id=provenance_id)
        if detached:
            job.executor_ref = job.id
        insert(self.backend, job.record(), self.max_jobs, self.max_jobs_per_owner, self.sweep)
        job.store = self
        self._live[job.id] = job
        self._sessions.started(job)
        self._elsewhere.job_started()
        return job

    def cancel(self, job: Job, reason: str) -> Job:
        """Cancel ``job`` (from :meth:`get`) wherever it runs; the job as it is now — ``cancelled``,
        or the end it reached first.

        A job of this process is cancelled here (:meth:`Job.cancel`). One another live process runs
        (``--workers N``, processes sharing a Redis or a state directory) is stored as cancelled, and
        that process, told through the store (Redis) or reading it (SQLite: :mod:`.cancel_look`), stops
        it (``ctx.is_cancelled()``, its executor's cancel: ``scancel``...); its own end never replaces
        the cancel (:mod:`.elsewhere`). MCP 2025-11-25, Basic § Utilities § Tasks § Task Cancellation."""
        live = self._live.get(job.id)
        if live is not None:
            live.cancel(reason)
            return live
        return self._elsewhere.cancel(job, reason)

    def runs_here(self, job: Job) -> bool:
        """Whether this process runs ``job`` (from :meth:`get`)."""
        return job.id in self._live

    def answer(self, job: Job, answers: dict[str, Any]) -> None:
        """Hand checked ``answers`` to the input requests of ``job``, a task another process runs
        (``tasks/update`` received here), to that process (:meth:`.elsewhere.Elsewhere.answer`).

        Raises:
            ServerBusy: the processes share no Redis; the client should send them again (503).
            StateUnavailable: Redis cannot be reached (503).
        """
        self._elsewhere.answer(job, answers)

    def get(self, job_id: object, owner: str | None, principal: Principal | str | None = None) -> Job:
        """The job with ``job_id`` visible to ``owner`` (a session id) and ``principal`` (a
        ``Principal`` or its subject).

        Raises:
            UnknownComponent: no such job for this caller (the same answer whether it never
                existed, expired, or belongs to someone else). An id of a form the server never makes
                (:func:`.visibility.minted`) is refused so before any store is read.
        """
        if not minted(job_id):  # any other text (a lone surrogate: no store could even encode it)
            raise unknown_job(job_id)
        job = self._live.get(job_id)
        if job is None and self.persistent:
            row = self.backend.load(job_id)
            job = self._revive(row) if row is not None else None
        subject = subject_of(principal)
        if job is None or job.expired(time.time()) or not visible(job, keyed(owner), subject, self.runs.serving,
                                                                  self._sessions.over, self._matches):
            raise unknown_job(job_id)
        if job.principal is None and job.principal_digest is not None:
            job.principal = subject  # (its digest matched: what the job keeps for it is owned by that subject)
        if job.status not in TERMINAL and self.persistent and self._live.get(job_id) is job:
            job = self._elsewhere.look_for_cancel(job)  # (another process may have stored its cancel)
        return job

    async def ended(self, job: Job, request: RequestContext | None = None) -> Job:
        """``job`` (from :meth:`get`) once it ended: its terminal status, result or error, as stored.

        A job this process runs ends with its ``done`` event. A job another process runs (a store
        shared by several processes) is read again when that process stores its end, which a Redis
        store tells at once, and every few seconds in any case (:mod:`.elsewhere`). Such a read also
        settles a job whose process died, as :meth:`get` does. That wait also ends once ``request``
        is cancelled (its client cancelled it or went away, its session ended): the job is then
        returned as it is, unended.

        Raises:
            UnknownComponent: the job's record is gone from the store meanwhile.
        """
        if job.status not in TERMINAL and self._live.get(job.id) is not job:
            job = await self._elsewhere.ended(job, request)
            if job.status not in TERMINAL and self._live.get(job.id) is not job:
                return job  # the request was cancelled
        await job.done.wait()
        return job

    async def follow(self, job: Job, report: Report, request: RequestContext | None = None) -> None:
        """Call ``report(job)`` with ``job`` (from :meth:`get`) as it is now each time it may have
        changed — its status (:meth:`changed`), progress or end — wherever it runs, until it ended (the
        last report) or ``request`` is cancelled: a 2026 listen naming a task (:mod:`.elsewhere`,
        :mod:`.far_ends`: reports at least ``FOLLOW_GAP_SECONDS`` apart, the job as it is then).

        Raises:
            UnknownComponent: the job's record is gone from the store meanwhile.
        """
        await self._elsewhere.follow(job, report, request)

    def session_ended(self, session_id: str) -> None:
        """The session ``session_id``, held by this process, ended: its jobs are read by their id from
        now on, here and on every process sharing the store (:meth:`.job_sessions.JobSessions.ended`)."""
        self._sessions.ended(session_id)

    def session_gone(self, key: str) -> bool:
        """Whether the job store knows that the session of ``key`` (``session_key`` of its id) ended
        (:meth:`.job_sessions.JobSessions.gone`: with Redis, its record there is gone)."""
        return self._sessions.gone(key)

    def owned_by(
        self, owner: str | None, *, principal: Principal | str | None = None, tasks_only: bool = False,
        after: Position | None = None, count: int | None = None,
    ) -> tuple[list[Job], bool]:
        """Live jobs of the session ``owner`` (never anyone else's), oldest first, after the position
        ``after`` (:func:`.pages.position`), the first ``count`` (None: all), and whether more follow;
        only task-augmented calls with ``tasks_only``. With a store several processes share (Redis),
        the ones the other processes run too: read from the store's index of the owner's jobs (at
        most ``max_jobs_per_owner``), of each record only what a list entry shows (:mod:`.pages`; a
        job of a dead process settled as :meth:`get` does).

        .. versionchanged:: 1.0
           Every process's jobs of the session with a Redis store, not only this process's; a page
           at a time, never reading a stored result.

        Raises:
            StateUnavailable: the shared store cannot be reached.
        """
        key = keyed(owner)
        shared = self.persistent and self._stored.shared is not None and self._stored.shared.shared
        return page(self._live, self.backend if shared else None, self._revive, key=key, subject=subject_of(principal),
                    tasks_only=tasks_only, after=after, count=count, window=self.max_jobs_per_owner)

    def listing(self, limit: int = 100, *, processes: Collection[str] | None = None) -> list[dict[str, Any]]:
        """The newest ``limit`` jobs of every owner, for the operator (``%mcp jobs``, the lab
        panel): id, tool, status, progress, times, executor (:data:`.visibility.LISTED`) — never
        arguments or results, and of the stored records only those fields are read.

        ``processes``: only the jobs run by job stores of these :attr:`process` tokens (a notebook
        kernel's servers: another kernel using the same state directory keeps its jobs to itself);
        :meth:`count_elsewhere` counts the others."""
        return self._stored.listing(limit, processes)

    def count_elsewhere(self, processes: Collection[str]) -> int:
        """How many stored jobs were run by job stores other than ``processes`` (see :meth:`listing`)."""
        return self._stored.count_elsewhere(processes)

    # -- upkeep -----------------------------------------------------------------------------
    def sweep(self, *, force: bool = True) -> None:
        """Forget expired jobs, in memory and in the store; unforced (a new job's), at most every
        :data:`PURGE_EVERY_SECONDS`: a look costs a pass over every live job and a delete. An
        expired job not swept yet is already invisible (:meth:`get`, :meth:`owned_by`)."""
        now = time.time()
        if not force and now - self._purged <= PURGE_EVERY_SECONDS:
            return
        self._purged = now
        for job in [j for j in self._live.values() if j.expired(now)]:
            del self._live[job.id]
            self._sessions.forget(job)
        self._stored.purge(now)

    def end_run(self) -> None:
        """End this run (the server stops): settle every running job (:func:`.settle.stop_run`:
        handed over, left to its executor, or failed with :data:`SERVER_STOPPED`), and take a new
        runner token for the jobs of the next start — a job of this run, its session gone with
        the stop, is then read by its id (:mod:`.visibility`)."""
        stop_run(self._live, self.hand_over)
        self.runs.next_start()

    def loop_ending(self, loop: asyncio.AbstractEventLoop, *, carry_over: HandOver | None = None,
                    started: Callable[[Job], bool] | None = None, ends: bool = True) -> list[asyncio.Task[Any]]:
        """A testing client's event loop ends while the server serves on: settle the jobs started on it
        that ``started`` accepts (:func:`.settle.loop_ending`: handed over, followed on the server's loop by
        ``carry_over``, or failed when ``ends``); returns their tasks, cancelled (called on ``loop``)."""
        return loop_ending(self._live, loop, self.hand_over, carry_over, started, ends=ends)

    def running_here(self) -> bool:
        """Whether a job of this process has not ended yet (one handed over at a stop included)."""
        return any(job.status not in TERMINAL for job in list(self._live.values()))

    def close(self) -> None:
        """Close the back end (a store given up: the testing clients' temporary one, :mod:`..first_use`);
        the next use opens it again."""
        self._stored.close()

    def settling(self) -> list[Future[None]]:
        """The jobs handed over at the stop whose end is not stored yet (:attr:`Job.settled`), their function
        running or returned: a process that exits waits for them (a write cut off by the exit can crash it)."""
        return [job.settled for job in list(self._live.values()) if job.settled is not None and not job.settled.done()]

    def handed_over(self) -> list[Job]:
        """The jobs handed over at the stop that have not ended (their function runs on in this process)."""
        return [job for job in list(self._live.values()) if job.handed_over and job.status not in TERMINAL]

    def process_ending(self) -> int:
        """The process ends (a blocking serve stopped by SIGTERM or Ctrl-C): tell every job handed
        over at the stop to cancel (:func:`.settle.process_ending`). Returns how many were told."""
        return process_ending(self._live)

    def process_ended(self) -> int:
        """The process ends now without waiting for its jobs (a notebook kernel's shutdown): cut short every
        job of this process not ended, handed over at the stop or not (:func:`.settle.process_ended`). Returns
        how many."""
        return process_ended(self._live)
