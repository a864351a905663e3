"""One job as the server keeps it: :class:`Job` (statuses, owner, result, progress), its store
record, and its wire ``Task`` (:func:`task_fields`). The store itself is :mod:`.jobs`.

Source: MCP 2025-11-25, Basic § Utilities § Tasks (statuses, ttl, pollInterval).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ...schema.secret_text import Telling
    from ..wire.principal import Principal

from ...state.principal_digest import DIGEST_OWNER
from ..wire.request import RequestContext, Slot


class JobKeeper(Protocol):
    """Where a job's record is kept (the :class:`~nanohubmcp.server.jobs.service.JobStore`)."""

    def finished(self, job: Job) -> None:
        """Store ``job``'s end."""
        ...

    def set_executor_ref(self, job: Job, ref: str) -> None:
        """Record what ``job``'s executor needs to find it again after a restart."""
        ...

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None) -> None:
        """Record a job's progress."""
        ...

    def note(self, job: Job) -> None:
        """Store a job's ``status_message`` and task metadata as they are now."""
        ...

    def changed(self, job: Job) -> None:
        """Store a running job's status and outstanding input requests as they are now."""
        ...

__all__ = ["MAX_PROGRESS_MESSAGE", "Job", "bounded_message", "queued_elsewhere", "subject_of", "task_fields"]

PROVENANCE_META = "io.nanohub/provenance"
"""The ``_meta`` key of a tool result (and of a finished job's) naming its provenance record's URI."""
PROVENANCE_URI_PREFIX = "nanohubmcp://provenance/"
"""A provenance record's URI is this and the record's id."""
DEFAULT_TTL_SECONDS = 3600.0
POLL_INTERVAL_MS = 1000

WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})
MAX_PROGRESS_MESSAGE = 200
"""The most characters of a progress message a job keeps and answers (a longer one is cut, ending "…")."""
QUEUED = "queued"
"""The ``status_message`` of a working job that waits for a turn at its executor (:mod:`.fair`);
an executor whose job waits in a batch system's queue starts its status message with it and a
space (``"queued at Slurm as job 4711 (reason: Resources)"``): see :func:`queued_elsewhere`."""


@dataclass(eq=False)
class Job:
    """One background call.

    Attributes:
        id: unguessable id (the capability for sessionless callers).
        owner: the key of the session that started it (the SHA-256 of its id, never the id:
            ``wire.sessions.session_key``), or None.
        session_ended: its session ended before its run did (DELETE, idle expiry, eviction): it
            is read by its id from then on, as after a stop (:mod:`.visibility`); stored, so every
            process sharing the store knows.
        principal: the subject of the authenticated principal that started it, or None (also in a job read back
            from a store that holds its digest instead, until a caller it matches reads it: ``JobStore.get``).
        principal_digest: the keyed digest of that subject, in a job read back from a store that holds it instead
            of the subject (Redis: ``nanohubmcp.state.redis_job_owners``), else None.
        status: working | input_required | completed | failed | cancelled.
        result: the shaped ``CallToolResult`` once completed (or failed with isError).
        json_text: the result's text is the JSON of the tool's value (a number, a boolean, a list or
            dict of data), not text the tool returned: ``get_job_result`` reads it back as that value.
        item_places: the tool returned a list mixing blocks with data (``[fig, "cap", {"n": 1}]``) and
            its result was made for MCP (not REST's data only): where each item of the list is in the
            result, a block's index or a JSON pointer into the structured content
            (``results.convert.mixed.places_of``), so that ``get_job_result`` answers the whole list with
            each block named in its place, as a job started over REST; else None (so in a record of an
            earlier version).
        error: a JSON-RPC error object when the call failed as a protocol error.
        executor: the executor's name (``threads``, ``processes``, ``dask``...).
        executor_ref: what the executor needs to find the job again after a restart, or None.
        progress / progress_total / progress_message: the last ``ctx.report_progress``.
        handed_over: its server stopped while its function ran on in this process; the
            function's end is stored all the same (see ``JobStore.end_run``).
        carried: the event loop of the testing client that started it ended while it ran, and the
            server's own loop follows it since (``JobStore.loop_ending``; a Dask job): its first task
            stores no end.
        trace_context: the W3C trace context carrier (``traceparent``, ``tracestate``,
            ``baggage``) of the span the job's run belongs to when the server traces, else None;
            an executor hands it to where the job runs (``executors.remote.run_remote``).
        where: where the function ran, set by its executor for the job's provenance record (merged
            over the server's ``host``/``pid``/``thread``): ``{"thread": name}`` (threads),
            ``{"pid": ..., "thread": ...}`` (its own process), ``executors.base.ran_away(...)``
            off the server's process (``host``/``pid``/``thread`` of the worker or node, which the
            job sent back with its value, else None; with ``dask_worker``...).
        provenance_id: the id of the provenance record of the call that started the job, or
            None; kept with the job so a server restarted after ``kill -9`` completes the record
            when it settles the job (or when the job ends there).
        waiting: while the job waits for a turn at its executor (in this process), how many jobs
            start before it; else None.
        input_requests: while the task is ``input_required``, its unanswered requests
            (``{key: {"method", "params"}}``, the tasks extension's ``inputRequests``), stored so every
            process answers ``tasks/get`` and tells listens with them; else None.
        answers_to: while the task's function waits for answers in this process, where answers
            another process received (``tasks/update``) are handed (``JobStore.answer``); else None.
        telling: how its failure is told (``schema.secret_text.Telling``: a ``Secret`` argument's value
            hidden), made where its call's arguments are whole, never stored; every end of the job tells
            it so (its call's, ``hand_over``'s, a carried-over job's). None in a job read back from the store.
    """

    id: str
    tool: str
    owner: str | None
    principal: str | None = None
    principal_digest: str | None = None
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    status: str = WORKING
    status_message: str | None = None
    result: dict[str, Any] | None = None
    json_text: bool = False
    item_places: list[int | str] | None = None
    error: dict[str, Any] | None = None
    ttl: float = DEFAULT_TTL_SECONDS
    finished_at: float | None = None
    request: RequestContext | None = None
    as_task: bool = False
    task: asyncio.Task[Any] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    executor: str = "threads"
    executor_ref: str | None = None
    arguments: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    progress: float | None = None
    progress_total: float | None = None
    progress_message: str | None = None
    runner: str | None = None
    abandoned: bool = False
    handed_over: bool = False
    carried: bool = False
    settled: Future[None] | None = field(default=None, repr=False, compare=False)
    trace_context: dict[str, str] | None = None
    where: dict[str, Any] | None = None
    provenance_id: str | None = None
    session_ended: bool = False
    input_requests: dict[str, Any] | None = None
    answers_to: Callable[[dict[str, Any]], None] | None = field(default=None, repr=False)
    waiting: Callable[[], int] | None = field(default=None, repr=False)
    store: JobKeeper | None = field(default=None, repr=False)
    telling: Telling | None = field(default=None, repr=False, compare=False)

    @property
    def followed_elsewhere(self) -> bool:
        """Whether another than the job's first task stores its end (:attr:`handed_over`, :attr:`carried`)."""
        return self.handed_over or self.carried

    def finish(self, status: str, *, result: dict[str, Any] | None = None,
               error: dict[str, Any] | None = None, message: str | None = None) -> None:
        """Move to a terminal state (first call wins) and store it."""
        if self.status in TERMINAL:
            return
        self.status = status
        self.result = result
        self.error = error
        if message is not None:
            self.status_message = message
        self.updated = self.finished_at = time.time()
        if self.store is not None:
            self.store.finished(self)
        self.done.set()

    def cancel(self, reason: str = "cancelled") -> None:
        """Cancel a running job cooperatively: its call is marked cancelled (the function's
        ``ctx.is_cancelled()`` turns true), its task is cancelled, and it ends ``cancelled``."""
        if self.status in TERMINAL:
            return
        if self.request is not None:
            self.request.cancel(reason)
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.finish(CANCELLED, message=reason)

    def expired(self, now: float) -> bool:
        """True once a finished job outlived its ttl."""
        return self.finished_at is not None and now - self.finished_at > self.ttl

    def task_meta(self) -> dict[str, Any] | None:
        """What the tool published with ``ctx.set_task_metadata`` (kept across restarts)."""
        if self.request is not None:
            return self.request.task_metadata or None
        return self.meta

    def provenance_uri(self) -> str | None:
        """The URI of the job's provenance record once the job ended, else None: what its result's
        ``_meta`` names (the recorder writes it there when the job ends), else the URI of the record
        id kept with the job (:attr:`provenance_id`: a job that ended without a result — cancelled,
        failed as a protocol error, settled at a restart — or so quickly that its end was stored
        before its record was opened). None while it runs, and for a job whose tool or server
        records nothing."""
        if self.status not in TERMINAL:
            return None
        uri = ((self.result or {}).get("_meta") or {}).get(PROVENANCE_META)
        if isinstance(uri, str):
            return uri
        return PROVENANCE_URI_PREFIX + self.provenance_id if self.provenance_id else None

    def queue_message(self) -> str | None:
        """The status message to show: ``"queued, N ahead"`` while the job waits for a turn at its
        executor in this process (``"queued"`` seen from another process), else its own."""
        if self.waiting is not None:
            return f"{QUEUED}, {self.waiting()} ahead"
        return self.status_message

    def progress_report(self) -> dict[str, Any] | None:
        """The last progress the job reported (``ctx.report_progress``, tqdm, a batch job's events), as
        ``get_job_result`` answers it while the job runs: ``{"progress": 10, "total": 60, "message":
        "sweep 10"}`` (``total`` and ``message`` only when reported; whole numbers as integers; the
        message at most :data:`MAX_PROGRESS_MESSAGE` characters), or None before the first report."""
        if self.progress is None:
            return None
        report: dict[str, Any] = {"progress": _number(self.progress)}
        if self.progress_total is not None:
            report["total"] = _number(self.progress_total)
        if self.progress_message:
            report["message"] = bounded_message(str(self.progress_message))
        return report

    def progress_line(self, said: str | None = None) -> str | None:
        """The last progress as a line: ``"10/60 (17%) sweep 10"`` (``"10 sweep 10"`` without a total),
        or None before the first report; without its message when that is ``said`` already."""
        report = self.progress_report()
        if report is None:
            return None
        done, total = report["progress"], report.get("total")
        line = f"{done}/{total}" if total is not None else f"{done}"
        if isinstance(total, (int, float)) and isinstance(done, (int, float)) and 0 < total < math.inf \
                and math.isfinite(done):
            line += f" ({100.0 * done / total:.0f}%)"
        return f"{line} {report['message']}" if report.get("message", said) != said else line

    def status_line(self) -> str | None:
        """A task's ``statusMessage``: :meth:`queue_message`, and while the job runs its
        :meth:`progress_line` after it (``"Slurm job 261 is running on node c1; 10/60 (17%) sweep 10"``), not saying
        twice what both say (``"submit: 2 finished, 1 executing of 3 runs; 66.67/100 (67%)"``)."""
        message = self.queue_message()
        done = self.progress_line(message) if self.status not in TERMINAL else None
        if done is None:
            return message
        return f"{message}; {done}" if message else done

    def owner_key(self) -> str:
        """Whom the per-owner bound counts this job against (a job read back with a digest: ``"pd:<digest>"``)."""
        if self.principal_digest is not None:
            return DIGEST_OWNER + self.principal_digest
        return owner_key(self.owner, self.principal)

    def record(self) -> dict[str, Any]:
        """The job as a store record."""
        return {
            "id": self.id, "tool": self.tool, "owner": self.owner, "principal": self.principal,
            "owner_key": self.owner_key(), "status": self.status, "status_message": self.status_message,
            "arguments": self.arguments, "result": self.result, "error": self.error, "meta": self.task_meta(),
            "created": self.created, "updated": self.updated, "finished_at": self.finished_at, "ttl": self.ttl,
            "as_task": self.as_task, "executor": self.executor, "executor_ref": self.executor_ref,
            "progress": self.progress, "progress_total": self.progress_total,
            "progress_message": self.progress_message, "progress_updates": 0, "runner": self.runner,
            "provenance_id": self.provenance_id, "json_text": self.json_text, "session_ended": self.session_ended,
            "input_requests": self.input_requests, "item_places": self.item_places,
        }

    @classmethod
    def from_record(cls, row: dict[str, Any]) -> Job:
        """A job rebuilt from a store record (no request, no running task)."""
        names = ("id", "tool", "owner", "principal", "created", "updated", "status", "status_message", "result",
                 "error", "ttl", "finished_at", "as_task", "executor", "executor_ref", "arguments", "meta",
                 "progress", "progress_total", "progress_message", "runner", "provenance_id", "input_requests",
                 "item_places", "principal_digest")  # (a record of an earlier version has no item_places: None)
        fields: dict[str, Any] = {name: row.get(name) for name in names}
        job = cls(**fields)
        job.executor = job.executor or "threads"
        job.json_text = bool(row.get("json_text"))  # (a record of an earlier version has none)
        job.session_ended = bool(row.get("session_ended"))
        if job.status in TERMINAL:
            job.done.set()
        return job


def owner_key(owner: str | None, principal: str | None) -> str:
    """Whom the per-owner bound counts the jobs of the session ``owner`` (its key) and ``principal`` (a
    subject) against: the principal when there is one, else the session (the store indexes jobs by it)."""
    if principal is not None:
        return f"principal:{principal}"
    return f"session:{owner}" if owner is not None else "anonymous"


def bounded_message(message: str | None) -> str | None:
    """``message`` cut to :data:`MAX_PROGRESS_MESSAGE` characters (the last one ``…``) when longer."""
    if message is None or len(message) <= MAX_PROGRESS_MESSAGE:
        return message
    return message[: MAX_PROGRESS_MESSAGE - 1] + "…"


def _number(value: Any) -> Any:
    """A whole float as an int (a store's REAL column gives 10.0 for 10); anything else as it is."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def queued_elsewhere(message: str | None) -> bool:
    """True when a working job's ``status_message`` says its executor handed it to a batch
    system's queue and it has not started there (``"queued at Slurm as job 4711 (reason:
    Resources)"``): ``get_job_result`` answers it ``"queued": true`` with that message."""
    return bool(message) and str(message).startswith(f"{QUEUED} ")


def subject_of(principal: Principal | str | None) -> str | None:
    """The subject a job is owned by: a ``Principal``'s ``subject`` (or a subject string)."""
    if principal is None or isinstance(principal, str):
        return principal
    return str(principal.subject)


def task_fields(job: Job, *, status: str, ttl_key: str, poll_key: str) -> dict[str, Any]:
    """The wire ``Task`` of ``job``; the caller's era names the status and the ttl/poll keys
    (2025-11-25: ``ttl``/``pollInterval``; the 2026 tasks extension: ``ttlMs``/``pollIntervalMs``).

    Times are ISO 8601 UTC with milliseconds (``2026-11-30T01:02:03.456Z``); ``_meta`` is what the
    tool set with ``ctx.set_task_metadata``.
    """
    task: dict[str, Any] = {
        "taskId": job.id,
        "status": status,
        "createdAt": _iso(job.created),
        "lastUpdatedAt": _iso(job.updated),
        ttl_key: round(job.ttl * 1000),  # 1.001 s is 1000.9999999999999 ms: int() answered 1000
        poll_key: POLL_INTERVAL_MS,
    }
    message = job.status_line()
    if message:
        task["statusMessage"] = message
    meta = job.task_meta()
    if meta:
        task["_meta"] = dict(meta)
    return task


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


TASK_JOB: Slot[Job] = Slot("task_job")
"""The task a 2026-07-28 call runs as, once it became one: its input requests then wait for
``tasks/update`` instead of ending the call with ``input_required``."""
