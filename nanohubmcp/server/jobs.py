"""Jobs: long-running tool calls that answer at once and are polled later.

One machinery serves ``@async_tool`` + ``get_job_result`` and MCP Tasks. A job belongs to the
session that started it (or, for a sessionless call, to whoever holds its unguessable id); its
result stays readable — again and again — until it expires, so a lost poll response loses
nothing (fixes study § f 5). Jobs run on a bounded executor, never a thread per job.

Source: MCP 2025-11-25, Basic § Utilities § Tasks (statuses, ttl, pollInterval).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..errors import UnknownComponent

DEFAULT_TTL_SECONDS = 3600.0
POLL_INTERVAL_MS = 1000

WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})


@dataclass(eq=False)
class Job:
    """One background call.

    Attributes:
        id: unguessable id (the capability for sessionless callers).
        owner: session id that started it, or None.
        status: working | input_required | completed | failed | cancelled.
        result: the shaped ``CallToolResult`` once completed (or failed with isError).
        error: a JSON-RPC error object when the call failed as a protocol error.
    """

    id: str
    tool: str
    owner: str | None
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    status: str = WORKING
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    ttl: float = DEFAULT_TTL_SECONDS
    finished_at: float | None = None
    request: Any = None
    as_task: bool = False
    task: asyncio.Task[Any] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def finish(self, status: str, *, result: dict[str, Any] | None = None,
               error: dict[str, Any] | None = None, message: str | None = None) -> None:
        """Move to a terminal state (first call wins)."""
        if self.status in TERMINAL:
            return
        self.status = status
        self.result = result
        self.error = error
        if message is not None:
            self.status_message = message
        self.updated = self.finished_at = time.time()
        self.done.set()

    def expired(self, now: float) -> bool:
        """True once a finished job outlived its ttl."""
        return self.finished_at is not None and now - self.finished_at > self.ttl


class JobStore:
    """The server's jobs, with ownership checks and expiry (event loop thread only)."""

    def __init__(self, ttl: float = DEFAULT_TTL_SECONDS) -> None:
        self.ttl = ttl
        self._jobs: dict[str, Job] = {}

    def create(self, tool: str, owner: str | None) -> Job:
        """Register a new working job."""
        self.sweep()
        job = Job(id=secrets.token_urlsafe(24), tool=tool, owner=owner, ttl=self.ttl)
        self._jobs[job.id] = job
        return job

    def get(self, job_id: Any, owner: str | None) -> Job:
        """The job with ``job_id`` visible to ``owner``.

        A job started in a session is visible only to that session; a job started without a
        session is visible to whoever holds its id.

        Raises:
            UnknownComponent: no such job for this caller (the same answer whether it never
                existed, expired, or belongs to someone else).
        """
        job = self._jobs.get(job_id) if isinstance(job_id, str) else None
        if job is None or job.expired(time.time()) or (job.owner is not None and job.owner != owner):
            raise UnknownComponent(f"Unknown job or task id: {job_id!r} (it may have expired)")
        return job

    def owned_by(self, owner: str | None, *, tasks_only: bool = False) -> list[Job]:
        """Jobs of ``owner`` (never anyone else's), oldest first; only task-augmented calls
        with ``tasks_only``."""
        now = time.time()
        return [j for j in self._jobs.values()
                if j.owner == owner and owner is not None and not j.expired(now) and (j.as_task or not tasks_only)]

    def sweep(self) -> None:
        """Forget expired jobs."""
        now = time.time()
        for job_id in [j.id for j in self._jobs.values() if j.expired(now)]:
            del self._jobs[job_id]

    def cancel_all(self) -> None:
        """Cancel every running job (server shutdown)."""
        for job in self._jobs.values():
            if job.task is not None and not job.task.done():
                job.task.cancel()


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
        ttl_key: int(job.ttl * 1000),
        poll_key: POLL_INTERVAL_MS,
    }
    if job.status_message:
        task["statusMessage"] = job.status_message
    meta = job.request.extra.get("task_metadata") if job.request is not None else None
    if meta:
        task["_meta"] = dict(meta)
    return task


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
