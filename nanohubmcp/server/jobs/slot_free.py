"""When a caller whose share of the job store is full (``max_jobs_per_owner``) may start a job again.

Every record of the owner counts, a finished one too, until it expires (``finished_at + ttl``,
``job_ttl_seconds``): the bound is on what one principal keeps stored (a finished job keeps its result,
up to ``max_job_result_bytes``), so a result read stays readable, and counted, until then. A slot frees
when the owner's earliest-expiring finished job expires; while every counted job still runs the time
is unknown. The refusal tells it (:class:`~nanohubmcp.errors.JobLimitReached` ``retry_after``: the MCP
result's ``_meta``, REST's ``Retry-After``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from ...errors import JobLimitReached
from .backend import JobBackend

__all__ = ["insert", "seconds_to_a_slot"]


def insert(backend: JobBackend, record: dict[str, Any], max_total: int, max_per_owner: int,
           sweep: Callable[[], None]) -> None:
    """Store a new job's ``record`` within the bounds; a refusal of the owner's share says when a slot
    frees (``retry_after``), after one ``sweep`` and retry when an expired record of the owner still
    counted (the store sweeps seldom: ``PURGE_EVERY_SECONDS``).

    Raises:
        JobLimitReached: a bound is reached (the owner's: ``retry_after`` set when known).
    """
    for attempt in range(2):
        try:
            backend.insert(record, max_total=max_total, max_per_owner=max_per_owner)
            return
        except JobLimitReached as refused:
            if not refused.per_owner:
                raise
            wait = seconds_to_a_slot(backend, record["owner_key"], max_per_owner, time.time())
            if wait is not None and wait <= 0 and attempt == 0:
                sweep()
                continue
            refused.retry_after = None if wait is None else max(1, math.ceil(wait))
            raise


def seconds_to_a_slot(backend: JobBackend, owner_key: str, counted: int, now: float) -> float | None:
    """Seconds from ``now`` until the first of the owner's finished jobs expires (0 or less: one has
    expired already and is not swept yet), None when none of them has finished.

    Args:
        backend: the job store's back end.
        owner_key: the owner whose share is full.
        counted: how many of the owner's records to read (``max_jobs_per_owner``: those counted).
        now: the time now (epoch seconds).
    """
    ids = [job_id for job_id, _created in backend.owner_index(owner_key, since=-math.inf, start=0, count=counted)]
    ends = [float(row["finished_at"]) + float(row["ttl"])
            for row in backend.summaries(ids, ("id", "finished_at", "ttl"))
            if row.get("finished_at") is not None and row.get("ttl") is not None]
    return min(ends) - now if ends else None
