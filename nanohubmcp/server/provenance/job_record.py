"""A job's provenance record, completed when the job ends (:class:`.handover.JobEnd`).

A call that starts a job gets a record at once, open (``working``) until the job ends; then
:func:`completed` gives that record the job's end: its status, when it ended, the executor, where it ran
(an executor's own place too: a Dask worker, a Slurm job and node), the result's digest and links, and the
error a failed job ended with. A record that is missing by then is made from what the job store kept of
the job (:func:`made_from_job`).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from ...schema.kept_arguments import arguments_text
from ...state.principal_digest import DIGEST_OWNER
from ..results.owners import SESSION_OWNER
from .result_text import cut, kept_and_digest, resource_links
from .rows import CallRow, column_json

if TYPE_CHECKING:
    from .handover import Earlier, JobEnd, Made

NOWHERE = {"host": None, "pid": None, "thread": None}
"""The ``where`` of a job whose executor said none: not known, so not named (as for a Dask job that sent none)."""

SLURM_META = "org.nanohub/slurm"
"""The task metadata key where the Slurm executor says where a job is (``job_id``, ``node``...)."""


def completed(end: JobEnd, earlier: Earlier, created: float, expires: float) -> Made | None:
    """The record of the job that ended (``end``) completed, as a row written at ``created`` that expires at
    ``expires``; None for a record of the first schema (kept as it was)."""
    row = earlier(end.record_id)
    if row is not None and row.body is not None:
        return None  # a record of the first schema: kept as it was
    if row is None:  # never written (a kill -9 before the writer wrote it), or expired while the job ran
        row = made_from_job(end)
    extra = json.loads(row.extra) if row.extra else {}
    where = dict(extra.get("where") or {})
    # Where the job's function ran, as its executor said; none said (a job cancelled before it started, or before
    # its executor could tell): none is named, never the thread that served the call (the record's start).
    where.update(end.where or NOWHERE)
    slurm = end.task.get(SLURM_META) if isinstance(end.task.get(SLURM_META), dict) else None
    if slurm is not None:
        where.update(slurm_job_id=slurm.get("job_id"), node=slurm.get("node"))
    if where:
        extra["where"] = where
    extra["error"] = cut(str(end.message)) if end.status != "completed" and end.message is not None else None
    if end.executor_ref:
        extra["executor_ref"] = end.executor_ref
    if end.result is not None:
        kept, digest = kept_and_digest({key: value for key, value in end.result.items() if key != "_meta"})
    else:
        digest = kept = None
    links = resource_links(end.result or {})
    for key in ("status", "executor", "resource_links"):  # the columns are the record's (rows.view: extra wins)
        extra.pop(key, None)
    done = row._replace(
        created=created,
        expires=expires,
        status=end.status,
        ended=end.finished_at or time.time(),
        executor=end.executor,
        result_digest=digest,
        result=kept,
        resource_links=column_json(links) if links else None,
        extra=column_json(extra),
    )
    return done, None, None


def made_from_job(end: JobEnd) -> CallRow:
    """The started record of a job whose own record is missing when the job ends, made from what the
    job store kept of the job (its tool, owner, arguments with secrets already replaced, start).

    A server killed (``kill -9``) before its writer wrote the record of a call that started a job loses
    that record (the writer gathers records for up to a second, and the first record of a process waits
    for the table of installed packages), while the job lives on in the job store: a job its executor
    keeps running (Slurm, Dask) is taken back by the restarted server and its result delivered naming
    this record's URI; a job of the killed process fails "the server stopped while this job ran: it did not
    complete; it may be run again". A record also expires while a job runs longer than the job store's TTL.
    What only the call knew (the code's hash and version, the Python and package versions, the request's id,
    protocol version and trace) is not known: those fields read as null, and ``made_from_job`` (true) says why.
    A job read back from a shared store that holds only its principal's digest, whose caller never read it here:
    owned by that digest (``pd:<digest>``), which no caller's owner key is (never its session's, nor anyone's)."""
    owner = f"principal:{end.principal}" if end.principal is not None else (
        DIGEST_OWNER + end.principal_digest if end.principal_digest is not None else
        SESSION_OWNER + end.owner if end.owner is not None else None)
    return CallRow(
        end.record_id,
        owner,
        end.tool,
        None,
        end.started,
        end.started,
        end.principal,
        end.owner[:12] if end.owner is not None else None,  # the session's digest (rows name no session id)
        started=end.started,
        arguments=arguments_text(end.arguments if isinstance(end.arguments, dict) else {}),
        extra=column_json({"job_id": end.job_id, "made_from_job": True}),
    )
