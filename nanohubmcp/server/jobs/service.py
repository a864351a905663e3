"""Jobs: long-running tool calls that answer at once and are polled later.

One machinery serves ``@async_tool`` + ``get_job_result`` and MCP Tasks. Every job is a record
in the job store (:mod:`.job_backends`): an SQLite file under the server's state directory by
default (:mod:`.state_dir`), or memory only with ``job_store="memory"``. Its result stays
readable — again and again — until it expires, so a lost poll response loses nothing, and a
stored result outlives the server process: after a restart every route answers a finished job
exactly as before. A job that was running when its process died is reported as failed ("the
server stopped while this job ran"), unless its executor still holds it (Dask) and takes it
back. A server that stops while its process lives on (a notebook's ``%mcp stop``, a restart
after a setting changed) does not fail a job whose function runs on in a thread of the process:
the function's end is stored when it comes, and the restarted server reads it.

Who may see a job (the rule, in every era and on every route):

- a job started by an authenticated principal is visible to that principal only;
- within that, a job started in a session is visible only to that session for as long as the
  server run that started it serves (even after the session ended), on every process of the
  server (``--workers N``, processes sharing a Redis or a state directory: each process's
  heartbeat or lock file names its current start); sessions end with their run — a stop
  (``server.stop()``, ``%mcp stop``) or the process's end — so for a job of an earlier run the
  unguessable job id is the capability: whoever holds it (with the same principal, if any)
  reads it — by any route;
- a job started without a session (REST, the 2026-07-28 era) is visible to whoever holds its
  id (with the same principal, if any).

An unknown, expired and someone else's job get the same answer, so ids cannot be probed.

Bounds: at most ``max_jobs`` records in the store and ``max_jobs_per_owner`` per owner (the
principal, else the session, else all sessionless callers together); a result larger than
``max_job_result_bytes`` (as JSON) fails its job with a message saying so. Jobs run on a
bounded executor, never a thread per job.

Source: MCP 2025-11-25, Basic § Utilities § Tasks (statuses, ttl, pollInterval).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from ...errors import JobLimitReached, UnknownComponent
from ...state.errors import StateUnavailable
from ..wire.state_dir import resolve_state_dir
from . import DEFAULT_MAX_JOBS, DEFAULT_MAX_JOBS_PER_OWNER, DEFAULT_MAX_RESULT_BYTES
from .cancel_look import CancelLook
from .pending import PendingEnds
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
    subject_of,
    task_fields,
)
from .stores import DB_FILE, JobBackend, MemoryBackend, RunnerLocks, SQLiteBackend, limit_message

if TYPE_CHECKING:
    from ...state.redis_jobs import RedisRunners
    from ...state.url import StateURL
    from ..wire.principal import Principal

__all__ = ["Job", "JobLimitReached", "JobStore", "task_fields"]

log = logging.getLogger("nanohubmcp.jobs")

PURGE_EVERY_SECONDS = 10.0
SERVER_STOPPED = "the server stopped while this job ran"


Reattach = Callable[[Job], "bool | None"]
"""An executor's hook: take back a job whose server process died — True if it did, False if
it cannot (the job fails), None if it cannot tell yet (asked again later)."""

HandOver = Callable[[Job], bool]
"""The tool-call service's hook at server stop: True when it keeps following ``job``, whose
function runs on in this process, and stores its end (the job is then not failed)."""


class JobStore:
    """The server's jobs: records in a back end, live jobs of this process in memory.

    Args:
        ttl: seconds a finished job stays readable (a task may ask for less).
        name: the server's name (names the default state directory).
        state_dir: the state directory (see :mod:`.state_dir`), or None for the default.
        kind: ``"sqlite"`` (default, kept across restarts) or ``"memory"``.
        shared: a Redis state URL: the records live there instead of the SQLite file, so every
            process of the server, on any machine, reads every job (``kind`` "memory" wins).
        max_jobs / max_jobs_per_owner / max_result_bytes: the bounds (module docstring).

    The back end is opened on first use: building a server writes nothing.
    """

    def __init__(self, ttl: float = DEFAULT_TTL_SECONDS, *, name: str = "server",
                 state_dir: str | os.PathLike[str] | None = None, kind: str = "sqlite",
                 max_jobs: int = DEFAULT_MAX_JOBS,
                 max_jobs_per_owner: int = DEFAULT_MAX_JOBS_PER_OWNER,
                 max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES, shared: StateURL | None = None,
                 reattach: Reattach | None = None, hand_over: HandOver | None = None) -> None:
        self.ttl = ttl
        self.shared = shared
        self.name = name
        self.state_dir = state_dir
        self.kind = kind
        self.max_jobs = max_jobs
        self.max_jobs_per_owner = max_jobs_per_owner
        self.max_result_bytes = max_result_bytes
        self.process = secrets.token_hex(12)
        self._runs = 1
        self.runner = runner_token(self.process, self._runs)
        self.reattach = reattach
        self.hand_over = hand_over
        self._live: dict[str, Job] = {}
        self._backend: JobBackend | None = None
        self._runners: RunnerLocks | RedisRunners | None = None
        self._purged = 0.0
        self._on_finish: list[Callable[[Job], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = PendingEnds(self._store_end)
        self._cancel_look: CancelLook | None = None  # a SQLite file shared with other processes (cancel_look)
        self._progress_lost: set[str] = set()  # jobs whose progress could not be stored (logged once)

    # -- the back end -----------------------------------------------------------------------
    @property
    def directory(self) -> str:
        """The state directory this store uses (or would use)."""
        return resolve_state_dir(self.name, self.state_dir)

    @property
    def backend(self) -> JobBackend:
        """The back end, opened on first use; a store left by a dead process is recovered."""
        if self._backend is None:
            if self.kind == "memory":
                self._backend = MemoryBackend()
            elif self.shared is not None and self.shared.shared:
                from ...state.redis_jobs import RedisJobBackend, RedisRunners

                shared = self._backend = RedisJobBackend(self.shared, self.name, limit_message)
                runners = self._runners = RedisRunners(self.shared, self.name)
                runners.claim(self.process, self.runner)
                shared.watch_cancels(self._cancelled_elsewhere)
                self.recover()
            else:
                directory = self.directory
                try:
                    shared_file = self._backend = SQLiteBackend(directory)
                    self._runners = RunnerLocks(directory)
                    self._runners.claim(self.process, self.runner)
                    self._cancel_look = CancelLook(shared_file.cancelled, self._live)
                except (OSError, sqlite3.Error) as exc:  # unwritable, not a directory, a broken file...
                    log.warning("cannot keep jobs in %s (%s): they are kept in memory and lost when the server "
                                "stops; set state_dir= (NANOHUBMCP_STATE_DIR) to a writable directory", directory, exc)
                    self.kind = "memory"
                    self._backend = MemoryBackend()
                    return self._backend
                self.recover()
        return self._backend

    def open(self) -> JobBackend:
        """Open the back end now (recovering the unfinished jobs of dead processes); the same
        back end as :attr:`backend`."""
        return self.backend

    @property
    def persistent(self) -> bool:
        """True when records outlive the process."""
        return self.kind != "memory"

    def recover(self) -> None:
        """Settle the unfinished jobs of dead processes: taken back by their executor, or
        failed with :data:`SERVER_STOPPED`. Runs when the store opens."""
        for row in self.backend.unfinished():
            if row["id"] not in self._live:
                self._revive(row)

    def _revive(self, row: dict[str, Any]) -> Job:
        job = Job.from_record(row)
        if job.status in TERMINAL or job.runner == self.runner:
            return job
        process = process_of(job.runner)
        if process != self.process and self._runners is not None and self._runners.alive(process):
            return job  # another live server process runs it
        # A dead process's job, or one an earlier run of this process left to its executor at its
        # stop (not followed here any more: followed jobs are in ``_live``).
        taken = self.reattach(job) if job.executor_ref and self.reattach is not None else False
        if taken is None:
            return job  # its executor may hold it: asked again on the next look
        job.store = self
        if taken:
            self._live[job.id] = job
            return job
        job.finish(FAILED, message=SERVER_STOPPED)
        return job

    def _write(self, job_id: str, fields: dict[str, Any]) -> None:
        try:
            self.backend.update(job_id, fields)
        except (sqlite3.Error, StateUnavailable) as exc:  # a full disk, Redis away: the server goes on
            log.warning("could not store job %s: %s", job_id, exc)

    # -- jobs -------------------------------------------------------------------------------
    def create(self, tool: str, owner: str | None, *, principal: Principal | str | None = None,
               arguments: dict[str, Any] | None = None, as_task: bool = False, ttl: float | None = None,
               message: str | None = None, executor: str = "threads", detached: bool = False,
               provenance_id: str | None = None) -> Job:
        """Register and store a new working job (``detached``: its executor keeps it running
        without this process and finds it again by its id; ``provenance_id``: the record of the
        call that starts it, completed when the job ends — in a restarted server too).

        Raises:
            JobLimitReached: the store holds ``max_jobs`` jobs, or the owner ``max_jobs_per_owner``.
        """
        self.sweep(force=False)
        job = Job(id=secrets.token_urlsafe(24), tool=tool, owner=owner, principal=subject_of(principal),
                  ttl=min(ttl, self.ttl) if ttl else self.ttl, as_task=as_task, status_message=message,
                  executor=executor, arguments=arguments, runner=self.runner, provenance_id=provenance_id)
        if detached:
            job.executor_ref = job.id
        record = job.record()
        self.backend.insert(record, max_total=self.max_jobs, max_per_owner=self.max_jobs_per_owner)
        job.store = self
        self._live[job.id] = job
        with contextlib.suppress(RuntimeError):  # where a cancel stored by another process is acted on
            self._loop = asyncio.get_running_loop()
            if self._cancel_look is not None:  # no channel tells this process: it looks (cancel_look)
                self._cancel_look.start(self._loop)
        return job

    def cancel(self, job: Job, reason: str) -> Job:
        """Cancel ``job`` (from :meth:`get`) wherever it runs; the job as it is now — ``cancelled``,
        or the end it reached first.

        A job of this process is cancelled here (:meth:`Job.cancel`). One another live process runs
        (``--workers N``, processes sharing a Redis or a state directory) is stored as cancelled, and
        that process, told through the store (Redis) or reading it (SQLite: :mod:`.cancel_look`), stops
        it (``ctx.is_cancelled()``, its executor's cancel: ``scancel``...); its own end never replaces
        the cancel. MCP 2025-11-25, Basic § Utilities § Tasks § Task
        Cancellation."""
        live = self._live.get(job.id)
        if live is not None:
            live.cancel(reason)
            return live
        if job.status in TERMINAL:
            return job
        now = time.time()
        fields = {"status": CANCELLED, "status_message": reason, "result": None, "error": None,
                  "updated": now, "finished_at": now, "ttl": job.ttl}
        if self.backend.end(job.id, fields):
            job.status, job.status_message, job.updated, job.finished_at = CANCELLED, reason, now, now
            job.done.set()
            return job
        row = self.backend.load(job.id)  # it ended meanwhile
        return Job.from_record(row) if row is not None else job

    def _cancelled_elsewhere(self, job_id: str | None) -> None:
        """The store says another process cancelled ``job_id`` (None: look at every live job, the
        cancels sent while this process was not listening): stop it if it runs here. Called on the
        back end's watching thread; the job is cancelled on the serving loop."""
        jobs = list(self._live.values()) if job_id is None else [self._live.get(job_id)]
        loop = self._loop
        for job in jobs:
            if job is None or job.status in TERMINAL or loop is None or loop.is_closed():
                continue
            row = self.backend.load(job.id)
            if row is None or row.get("status") != CANCELLED:
                continue
            loop.call_soon_threadsafe(job.cancel, row.get("status_message") or "cancelled")

    def get(self, job_id: object, owner: str | None, principal: Principal | str | None = None) -> Job:
        """The job with ``job_id`` visible to ``owner`` (a session id) and ``principal`` (a
        ``Principal`` or its subject).

        Raises:
            UnknownComponent: no such job for this caller (the same answer whether it never
                existed, expired, or belongs to someone else).
        """
        job = self._live.get(job_id) if isinstance(job_id, str) else None
        if job is None and isinstance(job_id, str) and self.persistent:
            row = self.backend.load(job_id)
            job = self._revive(row) if row is not None else None
        if job is None or job.expired(time.time()) or not self._visible(job, owner, subject_of(principal)):
            raise UnknownComponent(f"Unknown job or task id: {json.dumps(job_id)} (it may have expired)")
        return job

    def _visible(self, job: Job, owner: str | None, principal: str | None) -> bool:
        if job.principal != principal:
            return False
        # Sessions end with their run: a job of an earlier run (an earlier process, or an earlier
        # start of this one) is read by its id.
        return job.owner is None or job.owner == owner or not self._serving(job.runner)

    def _serving(self, runner: str | None) -> bool:
        """Whether the run that ``runner`` names still serves: this start, or the current start of
        another live process of this server (a sibling worker, a process on another machine)."""
        if runner == self.runner:
            return True
        process = process_of(runner)
        if not runner or process == self.process or self._runners is None:
            return False
        return self._runners.serving(process or "", runner)

    def owned_by(
        self, owner: str | None, *, principal: Principal | str | None = None, tasks_only: bool = False
    ) -> list[Job]:
        """Live jobs of the session ``owner`` (never anyone else's), oldest first; only
        task-augmented calls with ``tasks_only``."""
        now = time.time()
        principal = subject_of(principal)
        return [j for j in self._live.values()
                if j.owner == owner and owner is not None and j.principal == principal and not j.expired(now)
                and (j.as_task or not tasks_only)]

    def listing(self, limit: int = 100, *, processes: Collection[str] | None = None) -> list[dict[str, Any]]:
        """The newest ``limit`` jobs of every owner, for the operator (``%mcp jobs``, the lab
        panel): id, tool, status, progress, created, executor — never arguments or results.

        ``processes``: only the jobs run by job stores of these :attr:`process` tokens (a notebook
        kernel's servers: another kernel using the same state directory keeps its jobs to itself);
        :meth:`count_elsewhere` counts the others."""
        if self._backend is None and self.persistent and not os.path.exists(os.path.join(self.directory, DB_FILE)):
            return []  # nothing stored yet: do not create the store just to look
        rows = self.backend.select(limit=limit if processes is None else self.max_jobs)
        keep = ("id", "tool", "status", "status_message", "progress", "progress_total", "progress_message",
                "created", "updated", "finished_at", "executor")
        listed = []
        for row in rows:
            if processes is not None and process_of(row.get("runner")) not in processes:
                continue
            live = self._live.get(row["id"])
            entry = {key: row.get(key) for key in keep}
            if live is not None:
                entry.update(status=live.status, progress=live.progress, progress_total=live.progress_total,
                             progress_message=live.progress_message)
            listed.append(entry)
            if len(listed) >= limit:
                break
        return listed

    def count_elsewhere(self, processes: Collection[str]) -> int:
        """How many stored jobs were run by job stores other than ``processes`` (see :meth:`listing`)."""
        if self._backend is None and self.persistent and not os.path.exists(os.path.join(self.directory, DB_FILE)):
            return 0
        rows = self.backend.select(limit=self.max_jobs)
        return sum(1 for row in rows if process_of(row.get("runner")) not in processes)

    # -- updates from running jobs ----------------------------------------------------------
    def set_executor_ref(self, job: Job, ref: str) -> None:
        """Record what ``job``'s executor needs to find it again after a restart (a batch
        system's job id, a folder), once it knows (any thread)."""
        job.executor_ref = ref
        self._write(job.id, {"executor_ref": ref})

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None) -> None:
        """Record a job's progress (any thread)."""
        job = self._live.get(job_id)
        if job is not None:
            job.progress, job.progress_total, job.progress_message = progress, total, message
            job.updated = time.time()
        try:
            self.backend.progress(job_id, progress, total, message)
        except (sqlite3.Error, StateUnavailable) as exc:  # best effort: never raised into the tool
            if job_id not in self._progress_lost and len(self._progress_lost) < self.max_jobs:
                self._progress_lost.add(job_id)
                log.warning("could not store the progress of job %s (dropped; the job runs on): %s", job_id, exc)

    def note(self, job: Job) -> None:
        """Store a job's ``status_message`` and task metadata as they are now (``"queued"`` while it
        waits for a turn at its executor, so every process shows it; a cancelled Slurm job's last
        state)."""
        job.updated = time.time()
        self._write(job.id, {"status_message": job.status_message, "meta": job.task_meta(), "updated": job.updated})

    def on_finish(self, callback: Callable[[Job], None]) -> None:
        """Call ``callback(job)`` when a job reaches its terminal state, before its end is stored
        (the provenance recorder completes the job's record and names it in the result)."""
        self._on_finish.append(callback)

    def finished(self, job: Job) -> None:
        """Store a job that reached its terminal state (called by :meth:`Job.finish`); a result
        over ``max_result_bytes`` fails the job instead."""
        for callback in self._on_finish:
            try:
                callback(job)
            except Exception:
                log.exception("a finish hook failed for job %s", job.id)
        if job.result is not None:
            size = len(json.dumps(job.result, separators=(",", ":"), ensure_ascii=False).encode())
            if size > self.max_result_bytes:
                text = (f"The job's result is {size} bytes as JSON; the job store keeps at most "
                        f"{self.max_result_bytes} (option max_job_result_bytes)")
                job.status, job.status_message = FAILED, text
                job.result, job.json_text = {"content": [{"type": "text", "text": text}], "isError": True}, False
        self._progress_lost.discard(job.id)
        try:
            self._store_end(job)
        except StateUnavailable:
            # Kept, never dropped: this process answers polls from ``job`` meanwhile (it stays in
            # ``_live``), and the end is written once the store answers (:mod:`.pending`).
            log.warning("could not store the end of job %s: the job store is unreachable; kept and retried "
                        "until it answers", job.id)
            self._pending.keep(job)
        except sqlite3.Error as exc:  # a full disk must not take the server down
            log.warning("could not store job %s: %s", job.id, exc)

    def _store_end(self, job: Job) -> None:
        """Write ``job``'s end over a record without one; if another process ended it first (a
        cancel), take that end (any thread). The one end replaced is the guess another process
        stored when this job's runner looked dead — :data:`SERVER_STOPPED`, for a job whose runner's
        heartbeat lapsed while the shared store was away (longer than its ttl): the real end wins.

        Raises:
            StateUnavailable: the shared store cannot be reached (the caller keeps the end).
        """
        fields = {
            "status": job.status, "status_message": job.status_message, "result": job.result, "error": job.error,
            "json_text": job.json_text, "meta": job.task_meta(), "updated": job.updated,
            "finished_at": job.finished_at, "ttl": job.ttl}
        runner = job.runner  # a job of this process only: a guess never replaces another guess or a real end
        guess = (runner, SERVER_STOPPED) if runner is not None and process_of(runner) == self.process else None
        if self.backend.end(job.id, fields, guess):
            return
        row = self.backend.load(job.id)
        if row is not None and row.get("status") in TERMINAL:  # another process ended it first (a cancel)
            job.status, job.status_message = row["status"], row.get("status_message")
            job.result, job.error, job.finished_at = row.get("result"), row.get("error"), row.get("finished_at")
            job.json_text = bool(row.get("json_text"))

    # -- upkeep -----------------------------------------------------------------------------
    def sweep(self, *, force: bool = True) -> None:
        """Forget expired jobs, in memory and in the store; unforced (a new job's), at most every
        :data:`PURGE_EVERY_SECONDS`: a look costs a pass over every live job and a delete. An
        expired job not swept yet is already invisible (:meth:`get`, :meth:`owned_by`)."""
        now = time.time()
        if not force and now - self._purged <= PURGE_EVERY_SECONDS:
            return
        self._purged = now
        for job_id in [j.id for j in self._live.values() if j.expired(now)]:
            del self._live[job_id]
        if self._backend is not None:
            try:
                self._backend.purge(now)
            except (sqlite3.Error, StateUnavailable) as exc:
                log.warning("could not purge expired jobs: %s", exc)

    def end_run(self) -> None:
        """End this run (the server stops): settle every running job as below, and take a new
        runner token for the jobs of the next start — a job of this run, its session gone with
        the stop, is then read by its id (module docstring).

        A job its executor keeps running without this process (``executor_ref`` set: Dask) is
        left as it is, for a restarted server to take back. One whose function runs on in this
        process (a worker thread) is handed over (:attr:`hand_over`): it stays working and its end
        is stored when it comes. Every other one fails with :data:`SERVER_STOPPED`.
        """
        for job in list(self._live.values()):
            if job.status in TERMINAL or job.handed_over:
                continue
            if job.executor_ref is None and self.hand_over is not None and self.hand_over(job):
                job.handed_over = True
            elif job.executor_ref is None:
                if job.request is not None:
                    job.request.cancel(SERVER_STOPPED)
                job.finish(FAILED, message=SERVER_STOPPED)
            else:  # left to its executor: the record stays "working" for the next server
                del self._live[job.id]
                job.abandoned = True
                job.store = None
            if job.task is not None and not job.task.done():
                job.task.cancel()
        self._runs += 1
        self.runner = runner_token(self.process, self._runs)
        if self._runners is not None:
            self._runners.started(self.runner)

    def process_ending(self) -> int:
        """The process ends (a blocking serve stopped by SIGTERM or Ctrl-C): tell every job handed
        over at the stop to cancel (its function's ``ctx.is_cancelled()`` turns true), so a tool that
        looks returns before the exit. Its end is then stored as :data:`SERVER_STOPPED`, what a job
        the process's end cuts short answers (the hand-over's ``ended``). Returns how many were told.
        """
        told = 0
        for job in list(self._live.values()):
            if job.handed_over and job.status not in TERMINAL and job.request is not None:
                job.request.cancel(SERVER_STOPPED)
                told += 1
        return told


def runner_token(process: str, run: int) -> str:
    """The runner token of a server's ``run``-th start in the process that claimed ``process``
    (a job record names the runner that ran it)."""
    return f"{process}.{run}"


def process_of(runner: str | None) -> str | None:
    """The process part of a runner token (a record of an earlier version names the process only)."""
    return runner.partition(".")[0] if runner else None
