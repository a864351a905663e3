"""What the call path hands the record writer, and what the writer makes of it: the seam between them.

A call hands over only references (:data:`PendingCall`), a job's end a few of its fields (:class:`JobEnd`);
:func:`.capture.build` makes the record's row from them later, on the record store's writer thread
(:data:`Made`). The result is copied (shallowly) when it is handed over, so a layer outside that adds to it
cannot change the record; a tool's arguments and nested result values are not copied (nothing of ours
changes them after the call; a job that changes a list it was given while its record is made is recorded
as it was then). The result cache's marks on a call (:data:`CACHE_META`, :data:`CACHED_FROM`) are named
here too: the cache layer sets them, the record reads them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..wire.request import Slot
from .rows import CallRow

if TYPE_CHECKING:
    from ...protocol.versions import ProtocolVersion
    from ..jobs.record import Job
    from ..registry.components import Tool
    from ..wire.principal import Principal
    from ..wire.sessions import Session

PendingCall = tuple[
    str, "Tool", "Principal | None", "Session | None", "str | int | None", "ProtocolVersion",
    "str | None", Any, dict[str, Any], float, float, "tuple[str, threading.Thread]", Any, "str | None",
    "str | None",
]
"""What a call hands over for its record (references only): ``(record_id, tool, principal,
session, request_id, version, job_id, arguments, result, started, ended, ran_on, span,
cached_from, ran)`` — the
request context's fields of those names (the record's owner is made from the principal and
session here: :func:`~nanohubmcp.server.results.owners.owner_for`), not the context (what it
holds would live until the record is made), the arguments as received, the result a shallow
copy of the answer without the record's own ``_meta`` key, ``ran_on`` the executor and thread
the function ran on (:data:`~nanohubmcp.server.calls.progress.RAN_ON`; else the event loop and the
thread that served the call), ``span`` the request's server span when the server traces it (else None), ``cached_from``
what :data:`CACHED_FROM` holds (a cache hit's producing record), else None, ``ran`` the code hash the
call ran with for a tool whose code is files (:data:`.code_files.WATCHED`; they may be edited before
the record is made), else None."""
Earlier = Callable[[str], "CallRow | None"]
"""Finds a record made earlier (in the same batch or stored), or None."""
Facts = tuple[str, str]
"""``(key, JSON text)`` of the facts a record refers to (:func:`.rows.facts_of`)."""
Made = tuple[CallRow, "Facts | None", "tuple[str, str] | None"]
"""``(row, the facts it refers to, (code hash, source) to keep)``."""
CACHE_META = "io.nanohub/cache"
"""The ``_meta`` key of a result the result cache answered or stored: ``{"hit": bool, ...}``."""
NOT_ANSWERED = "io.nanohub/not-answered"
"""The ``_meta`` key of a result handed over for a call no client got a result of (one the server's stop cut
short): the record keeps its error and its status, ``failed`` (``cancelled`` when its value is :data:`CANCELLED`),
but no result nor digest."""
CANCELLED = "cancelled"
"""The :data:`NOT_ANSWERED` value of a call whose client cancelled it and whose coroutine was cancelled for it
(``wire.request.CLIENT_CANCELLED``): its record's status."""
CACHED_FROM: Slot[str] = Slot("cached from")
"""The URI of the provenance record of the run whose stored result the cache answered this call
with (set by the cache layer on a hit; the hit's record names it as ``cached_from``)."""


class JobEnd:
    """A job's end, handed over for its record (:func:`.capture.build` completes the job's record, or makes it
    from what the job store kept of the job when it is missing: :func:`.job_record.made_from_job`)."""

    __slots__ = ("arguments", "executor", "executor_ref", "finished_at", "job_id", "message", "owner", "principal",
                 "principal_digest", "record_id", "result", "started", "status", "task", "tool", "where")

    def __init__(self, record_id: str, job: Job) -> None:
        self.record_id = record_id
        self.job_id = job.id
        self.tool = job.tool
        self.owner = job.owner
        self.principal = job.principal
        self.principal_digest = job.principal_digest
        self.arguments = job.arguments
        self.started = job.created
        self.status = job.status
        self.finished_at = job.finished_at
        self.executor = job.executor
        self.executor_ref = job.executor_ref
        self.where = dict(job.where or {})
        self.task = job.task_meta() or {}
        self.result = job.result
        self.message = job.status_message
