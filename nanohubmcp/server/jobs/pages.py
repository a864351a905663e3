"""A session's jobs a page at a time (``tasks/list``), reading of the records only what a list entry shows.

A page holds the session's jobs after a position (creation time, id), oldest first. The jobs this
process runs are in memory. With a store several processes share (Redis), the others are found in
the store's index of their owner: ids and creation times, read a batch at a time from the position
on, and of each batch only the fields of :data:`SUMMARY` — never a record's arguments, result or
error, so a page of finished tasks costs what its entries show, not what their results hold. A
record whose job has not ended (it holds no result yet) is read whole, to be settled as
:meth:`~.service.JobStore.get` settles it (its process died). A page stops reading once it holds
one job more than it shows (so it knows whether a next page follows), and after ``window`` index
entries in any case (the owner's bound: the index holds no more).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .record import TERMINAL, Job, owner_key
from .visibility import owned

if TYPE_CHECKING:
    from .backend import JobBackend

__all__ = ["SUMMARY", "Position", "page", "position"]

SUMMARY = ("id", "tool", "owner", "principal", "principal_digest", "status", "status_message", "created", "updated",
           "finished_at", "ttl", "as_task", "executor", "executor_ref", "meta", "progress", "progress_total",
           "progress_message", "runner", "session_ended")
"""The fields of a record a listed job is built from: who owns it, whether it expired, and its ``Task``."""
MIN_BATCH = 16
"""The fewest index entries read at a time (some may be another session's of the same principal)."""

Position = tuple[float, str]


def position(job: Job) -> Position:
    """Where ``job`` stands in a list: its creation time, then its id."""
    return job.created, job.id


def page(live: Mapping[str, Job], stored: JobBackend | None, settle: Callable[[dict[str, Any]], Job], *,
         key: str | None, subject: str | None, tasks_only: bool, after: Position | None, count: int | None,
         window: int) -> tuple[list[Job], bool]:
    """The first ``count`` jobs (None: every one) of the session ``key`` and principal ``subject``
    after ``after``, oldest first, and whether more follow; ``live`` the jobs this process runs,
    ``stored`` the shared back end to read the others from (None: none), ``settle`` what makes a
    job of a whole record (settling it)."""
    now, start = time.time(), after or (-math.inf, "")
    matches = stored.principal_matches if stored is not None else _holds_subjects
    found = [j for j in live.values() if owned(j, key, subject, now, matches, tasks_only=tasks_only)
             and position(j) > start]
    if stored is not None and key is not None:
        want = window if count is None else count + 1
        found += _stored(live, stored, settle, key, subject, tasks_only, start, want, window, now)
    found.sort(key=position)
    if count is None:
        return found, False
    return found[:count], len(found) > count


def _stored(live: Mapping[str, Job], stored: JobBackend, settle: Callable[[dict[str, Any]], Job], key: str,
            subject: str | None, tasks_only: bool, start: Position, want: int, window: int, now: float) -> list[Job]:
    """The first ``want`` jobs of the owner's index after ``start`` that this process does not run."""
    index, read = owner_key(key, subject), 0
    jobs: list[Job] = []
    while len(jobs) < want and read < window:
        batch = stored.owner_index(index, since=start[0], start=read, count=min(max(want - len(jobs), MIN_BATCH),
                                                                             window - read))
        if not batch:
            break
        read += len(batch)
        ids = [job_id for job_id, created in batch if (created, job_id) > start and job_id not in live]
        for row in stored.summaries(ids, SUMMARY):
            if row.get("owner") != key:
                continue  # another session of the same principal
            job = Job.from_record(row) if row.get("status") in TERMINAL else _whole(stored, settle, row["id"])
            if job is not None and owned(job, key, subject, now, stored.principal_matches, tasks_only=tasks_only):
                jobs.append(job)
    return jobs


def _holds_subjects(stored: str, subject: str) -> bool:
    """No shared store: every job listed is this process's, which knows its principal's subject."""
    return False


def _whole(stored: JobBackend, settle: Callable[[dict[str, Any]], Job], job_id: str) -> Job | None:
    """A job that has not ended, from its whole record (settled if its process died), or None when gone."""
    row = stored.load(job_id)
    return settle(row) if row is not None else None
