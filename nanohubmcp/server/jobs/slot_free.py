"""When a caller whose share of the job store is full (``max_jobs_per_owner``), or who found the whole store full
(``max_jobs``), may start a job again.

Every record of the owner counts, a finished one too, until it expires (``finished_at + ttl``,
``job_ttl_seconds``): the bound is on what one principal keeps stored (a finished job keeps its result,
up to ``max_job_result_bytes``), so a result read stays readable, and counted, until then. A slot frees
when the owner's earliest-expiring finished job expires; while every counted job still runs the time
is unknown. The refusal tells it (:class:`~nanohubmcp.errors.JobLimitReached` ``retry_after``: the MCP
result's ``_meta``, REST's ``Retry-After``), and so does its text, which a model reads (:func:`owner_full`):
how many of the owner's jobs run and how many finished are kept, and when the first slot frees.

The whole store (``max_jobs``, every owner's records) frees a slot when its first finished record expires: the back
end's :meth:`~.backend.JobBackend.earliest_expiry`, one look at an index (SQLite, Redis) or at memory, never a read of
the records (up to 10,000). Where that is unknown — no stored job has finished, or (Redis, after an upgrade) none of
those finished is in the index of expiries yet (its purge scores them) — the refusal gives
:data:`FULL_STORE_RETRY_SECONDS` (a minute), a backoff its text names as one (:func:`store_full`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from ...errors import JobLimitReached
from .backend import JobBackend

__all__ = ["FULL_STORE_RETRY_SECONDS", "insert", "owner_full", "owner_refusal", "seconds_to_a_slot", "slot_wait",
           "store_full", "store_refusal"]

FULL_STORE_RETRY_SECONDS = 60
"""``Retry-After`` of a full store (``max_jobs``) that cannot tell when a slot frees: a minute, a backoff that keeps a
client's retries at one a minute (a refused start costs the server one look) while the jobs run."""


def insert(backend: JobBackend, record: dict[str, Any], max_total: int, max_per_owner: int,
           sweep: Callable[[], None]) -> None:
    """Store a new job's ``record`` within the bounds; a refusal says when a slot frees (``retry_after``), after
    one ``sweep`` and retry when an expired record still counted (the store sweeps seldom: ``PURGE_EVERY_SECONDS``).

    Raises:
        JobLimitReached: a bound is reached (the owner's: ``retry_after`` set when known; the store's: always set,
            :data:`FULL_STORE_RETRY_SECONDS` when unknown).
    """
    for attempt in range(2):
        try:
            backend.insert(record, max_total=max_total, max_per_owner=max_per_owner)
            return
        except JobLimitReached as refused:
            wait, refusal = (owner_refusal(backend, record["owner_key"], max_per_owner) if refused.per_owner
                             else store_refusal(backend, max_total))
            if wait is not None and wait <= 0 and attempt == 0:  # an expired record not swept yet
                sweep()
                continue
            raise refusal from None


def owner_refusal(backend: JobBackend, owner_key: str, max_per_owner: int) -> tuple[float | None, JobLimitReached]:
    """``(seconds, refusal)``: the seconds to the first expiry of the finished jobs of the owner ``owner_key`` (0 or
    less: one expired, not swept yet; None: none has finished), and the refusal of its full share saying them."""
    wait, finished, counted = slot_wait(backend, owner_key, max_per_owner, time.time())
    retry_after = None if wait is None else max(1, math.ceil(wait))
    return wait, JobLimitReached(owner_full(max_per_owner, counted, finished, retry_after), per_owner=True,
                                 retry_after=retry_after)


def store_refusal(backend: JobBackend, max_total: int) -> tuple[float | None, JobLimitReached]:
    """``(seconds, refusal)``: the seconds to the first expiry of the store's finished records
    (:meth:`~.backend.JobBackend.earliest_expiry`; None: unknown), and the refusal of the full store (``max_jobs``)
    saying them, or :data:`FULL_STORE_RETRY_SECONDS` when unknown."""
    expires = backend.earliest_expiry()
    wait = None if expires is None else expires - time.time()
    retry_after = FULL_STORE_RETRY_SECONDS if wait is None else max(1, math.ceil(wait))
    return wait, JobLimitReached(store_full(max_total, retry_after, known=wait is not None), retry_after=retry_after)


def seconds_to_a_slot(backend: JobBackend, owner_key: str, counted: int, now: float) -> float | None:
    """Seconds from ``now`` until the first of the owner's finished jobs expires (0 or less: one has
    expired already and is not swept yet), None when none of them has finished.

    Args:
        backend: the job store's back end.
        owner_key: the owner whose share is full.
        counted: how many of the owner's records to read (``max_jobs_per_owner``: those counted).
        now: the time now (epoch seconds).
    """
    return slot_wait(backend, owner_key, counted, now)[0]


def slot_wait(backend: JobBackend, owner_key: str, counted: int, now: float) -> tuple[float | None, int, int]:
    """``(seconds, finished, read)``: :func:`seconds_to_a_slot`'s seconds, how many of the owner's records
    read (at most ``counted``) hold a finished job, and how many were read."""
    ids = [job_id for job_id, _created in backend.owner_index(owner_key, since=-math.inf, start=0, count=counted)]
    ends = [float(row["finished_at"]) + float(row["ttl"])
            for row in backend.summaries(ids, ("id", "finished_at", "ttl"))
            if row.get("finished_at") is not None and row.get("ttl") is not None]
    return (min(ends) - now if ends else None), len(ends), len(ids)


def owner_full(limit: int, counted: int, finished: int, retry_after: int | None) -> str:
    """The refusal text of a full share (``max_jobs_per_owner`` ``limit``): why (``counted`` jobs of the
    owner, ``finished`` of them ended and kept until they expire) and when a slot frees (``retry_after``
    seconds, None: unknown, every counted job still runs), e.g. "... all 1000 of yours have finished and are
    kept. A slot frees in about 3549 s (59 min), when your first finished job expires: retry then, ..."."""
    head = (f"Too many jobs for one client: the server keeps at most {limit} (option max_jobs_per_owner), "
            "a finished one until it expires (option job_ttl_seconds); ")
    running = max(0, counted - finished)
    if retry_after is None or finished == 0:
        return (head + f"all {counted} of yours are still running, so a slot frees only once one of them ends "
                "and then expires. Wait for your jobs to end, or ask the server's operator to "
                "raise the limit.")
    kept = f"all {counted} of yours have finished and are kept" if running == 0 else \
        f"you have {running} running and {finished} finished and kept"
    return (head + f"{kept}. A slot frees in about {_duration(retry_after)}, when your first finished job "
            "expires: retry then, or ask the server's operator to raise the limit.")


def store_full(limit: int, retry_after: int, *, known: bool) -> str:
    """The refusal text of a full store (``max_jobs`` ``limit``): that a finished job counts until it expires, and
    when to retry: in ``retry_after`` seconds, when the first finished job expires (``known``), else as a backoff,
    e.g. "Too many jobs on this server: ... A slot frees in about 3549 s (59 min), when the first finished job
    expires: retry then, ..."."""
    head = (f"Too many jobs on this server: it keeps at most {limit} of all its clients (option max_jobs), a "
            "finished one until it expires (option job_ttl_seconds). ")
    if known:
        return (head + f"A slot frees in about {_duration(retry_after)}, when the first finished job expires: retry "
                "then, or ask the server's operator to raise the limit.")
    return (head + "The server cannot tell when a slot frees (it knows no finished job's expiry yet): retry in "
            f"{_duration(retry_after)}, or ask the server's operator to raise the limit.")


def _duration(seconds: int) -> str:
    """``seconds`` as a person reads it: ``45 s``, ``3549 s (59 min)``, ``7300 s (2.0 h)``."""
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds} s ({round(seconds / 60)} min)"
    return f"{seconds} s ({seconds / 3600:.1f} h)"
