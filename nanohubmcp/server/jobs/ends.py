"""A job's end in its record: written once, by whichever process ends it first.

A record takes an end only while it holds none (``JobBackend.end``, a conditional write in every
back end), so the first end stored wins: a cancel stored by another process is final, and the
function's own end, coming later, gives way to it (:func:`store_end` then takes the stored end
into the job). The one end replaced is the guess another process stored when the job's runner
looked dead — :data:`.settle.SERVER_STOPPED`, for a job whose runner's heartbeat lapsed while the
shared store was away (longer than its ttl): the job's own process writes its real end over it.
A result larger than ``max_job_result_bytes`` as JSON fails its job instead (:func:`cap_result`).
An end the store cannot take yet (Redis away) is kept by :mod:`.pending`.

Source: MCP 2025-11-25, Basic § Utilities § Tasks § Task Cancellation.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...protocol.content import tool_error_result
from ...protocol.lone_surrogates import utf8_storable
from .record import CANCELLED, FAILED, TERMINAL, Job
from .runs import process_of
from .settle import SERVER_STOPPED

if TYPE_CHECKING:
    from .backend import JobBackend

__all__ = ["cap_result", "end_fields", "store_cancel", "store_end", "stored_cancels"]


def end_fields(job: Job) -> dict[str, Any]:
    """The record's fields that ``job``'s end sets."""
    return {
        "status": job.status, "status_message": job.status_message, "result": job.result, "error": job.error,
        "json_text": job.json_text, "item_places": job.item_places, "meta": job.task_meta(), "updated": job.updated,
        "finished_at": job.finished_at, "ttl": job.ttl}


def store_end(backend: JobBackend, job: Job, process: str) -> None:
    """Write ``job``'s end over a record without one; if another process ended it first (a
    cancel), take that end into ``job`` (any thread). ``process``: the calling job store's process
    token; when ``job`` is that process's, its end also replaces the :data:`SERVER_STOPPED` guess
    another process stored for its runner (a guess never replaces another guess or a real end).

    Raises:
        StateUnavailable: the shared store cannot be reached (the caller keeps the end).
    """
    runner = job.runner
    guess = (runner, SERVER_STOPPED) if runner is not None and process_of(runner) == process else None
    if backend.end(job.id, end_fields(job), guess):
        return
    row = backend.load(job.id)
    if row is not None and row.get("status") in TERMINAL:  # another process ended it first (a cancel)
        job.status, job.status_message = row["status"], row.get("status_message")
        job.result, job.error, job.finished_at = row.get("result"), row.get("error"), row.get("finished_at")
        job.json_text, job.item_places = bool(row.get("json_text")), row.get("item_places")


def store_cancel(backend: JobBackend, job: Job, reason: str) -> Job:
    """Store ``job`` (run by another process) as cancelled unless it has ended; the job as it is
    now — ``cancelled``, or the end it reached first, as stored."""
    now = time.time()
    fields = {"status": CANCELLED, "status_message": reason, "result": None, "error": None,
              "updated": now, "finished_at": now, "ttl": job.ttl}
    if backend.end(job.id, fields):
        job.status, job.status_message, job.updated, job.finished_at = CANCELLED, reason, now, now
        job.done.set()
        return job
    row = backend.load(job.id)  # it ended meanwhile
    return Job.from_record(row) if row is not None else job


def stored_cancels(backend: JobBackend, job_ids: Sequence[str]) -> dict[str, str]:
    """Of ``job_ids``, those whose stored record another process cancelled, with the cancel's
    reason: one read of the status fields only (``JobBackend.summaries``), never a record's
    arguments or result. A record gone is left out."""
    rows = backend.summaries(job_ids, ("id", "status", "status_message")) if job_ids else []
    return {row["id"]: row.get("status_message") or "cancelled" for row in rows if row.get("status") == CANCELLED}


def cap_result(job: Job, max_bytes: int) -> None:
    """Fail ``job`` with a message saying so when its result is over ``max_bytes`` as JSON."""
    if job.result is None:
        return
    size = len(utf8_storable(json.dumps(job.result, separators=(",", ":"), ensure_ascii=False)).encode())
    if size > max_bytes:
        text = (f"The job's result is {size} bytes as JSON; the job store keeps at most "
                f"{max_bytes} (option max_job_result_bytes)")
        job.status, job.status_message = FAILED, text
        job.result, job.json_text = tool_error_result(text), False
        job.item_places = None
