"""Who may see a job: the rule every route applies, and what the operator's listing shows.

The rule, in every era and on every route:

- a job started by an authenticated principal is visible to that principal only;
- within that, a job started in a session is visible only to that session while both the session
  and the server run that started it last, on every process of the server (``--workers N``,
  processes sharing a Redis or a state directory: each process's heartbeat or lock file names its
  current start, :mod:`.runs`). Once either has ended — the session by a DELETE, idle expiry or
  eviction (the process holding it stores ``session_ended`` in the record; with Redis the
  session's record is gone), the run by a stop (``server.stop()``, ``%mcp stop``) or the
  process's end, which end its sessions too — the unguessable job id is the capability: whoever
  holds it (with the same principal, if any) reads it — by any route;
- a job started without a session (REST, the 2026-07-28 era) is visible to whoever holds its
  id (with the same principal, if any).

An unknown, expired and someone else's job get the same answer (:func:`unknown_job`), so ids
cannot be probed. An id the server cannot have made (:func:`minted`: not 32 characters of
``A-Z a-z 0-9 - _``) gets it before any store is read: whatever text a client sends (a lone UTF-16
surrogate, which no store can encode; a 100 kB string) is simply not found, in every store.

The operator (``%mcp jobs``, the lab panel) sees every owner's jobs, but only their id, tool,
status, progress, times and executor (:data:`LISTED`): never arguments or results.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

from ...errors import UnknownComponent
from .record import Job

__all__ = ["ECHOED_ID_CHARS", "LISTED", "Matches", "echoed_id", "minted", "new_job_id", "operator_rows", "owned",
           "same_principal", "unknown_job", "visible"]

LISTED = ("id", "tool", "status", "status_message", "progress", "progress_total", "progress_message",
          "created", "updated", "finished_at", "executor")
"""The fields of a job record the operator's listing shows."""


Matches = Callable[[str, str], bool]
"""Whether a stored ``principal_digest`` is a subject's (the back end's ``principal_matches``)."""


def same_principal(job: Job, principal: str | None, matches: Matches) -> bool:
    """Whether ``job`` was started by ``principal`` (a subject, or None: no authenticated caller): its subject, or,
    read back from a store that holds only its digest, that digest (``matches``). A job of a digest is nobody's
    without a principal."""
    if job.principal_digest is None or job.principal is not None:
        return job.principal == principal
    return principal is not None and matches(job.principal_digest, principal)


def visible(job: Job, owner: str | None, principal: str | None, serving: Callable[[str | None], bool],
            ended: Callable[[Job], bool], matches: Matches) -> bool:
    """Whether the caller of session ``owner`` (None: no session) and ``principal`` (a subject, or
    None) may see ``job``; ``serving(runner)`` says whether the run a runner token names still
    serves (:meth:`.runs.Runs.serving`), ``ended(job)`` whether the session that started ``job``
    ended, ``matches`` whether a stored digest is a subject's (:func:`same_principal`). Expiry is the caller's
    to check."""
    if not same_principal(job, principal, matches):
        return False
    # A job of an ended session — or of an earlier run (an earlier process, or an earlier start of
    # this one), whose sessions ended with it — is read by its id.
    return job.owner is None or job.owner == owner or not serving(job.runner) or ended(job)


def owned(job: Job, owner: str | None, principal: str | None, now: float, matches: Matches, *,
          tasks_only: bool = False) -> bool:
    """Whether ``job`` is a live job of the session ``owner`` and ``principal`` (never a sessionless
    one, never another principal's: :func:`same_principal`), unexpired at ``now``; only a task-augmented call with
    ``tasks_only``."""
    return (job.owner == owner and owner is not None and same_principal(job, principal, matches)
            and not job.expired(now) and (job.as_task or not tasks_only))


JOB_ID_BYTES = 24
"""The random bytes of a job id (:func:`new_job_id`)."""
_MINTED = re.compile(r"[A-Za-z0-9_-]{32}")


def new_job_id() -> str:
    """A new job id: :data:`JOB_ID_BYTES` random bytes as 32 characters of ``A-Z a-z 0-9 - _``
    (``secrets.token_urlsafe``); every job id the server has made is of this form."""
    return secrets.token_urlsafe(JOB_ID_BYTES)


def minted(job_id: object) -> TypeGuard[str]:
    """Whether ``job_id`` has the form of an id :func:`new_job_id` makes (only then may a store hold it)."""
    return isinstance(job_id, str) and _MINTED.fullmatch(job_id) is not None


ECHOED_ID_CHARS = 64
"""How much of a job id an answer repeats: a real one is 32 characters; the client sent the rest."""


def echoed_id(job_id: str) -> str:
    """``job_id`` as an answer repeats it: one over :data:`ECHOED_ID_CHARS` characters cut to those and "…"
    (a 100 kB id sent to ``cancel_job`` came back whole in its refusal)."""
    return job_id if len(job_id) <= ECHOED_ID_CHARS else f"{job_id[:ECHOED_ID_CHARS]}…"


NOT_READ = "it may have expired, or be another session's or user's"
"""Why a job id is not found, said alike whatever the case (whether such a job exists is never told)."""


def unknown_job(job_id: object) -> UnknownComponent:
    """The one answer for a job that never existed, expired, or is someone else's (an id over
    :data:`ECHOED_ID_CHARS` characters shown cut, as :func:`echoed_id` does): :data:`NOT_READ` says each case, so
    a client that reconnected in a new session while its old one lives learns why its own task is not found.

    .. versionchanged:: 1.0
       It said only "(it may have expired)" (trial78 NIT)."""
    if isinstance(job_id, str) and len(job_id) > ECHOED_ID_CHARS:
        shown = f"{json.dumps(job_id[:ECHOED_ID_CHARS])}…"
    else:
        shown = json.dumps(job_id)
    return UnknownComponent(f"Unknown job or task id: {shown} ({NOT_READ})")


def operator_rows(rows: list[dict[str, Any]], live: Mapping[str, Job]) -> list[dict[str, Any]]:
    """The stored ``rows`` (their :data:`LISTED` fields) as the operator sees them: with the status
    and progress of a job this process runs (``live``) as they are now."""
    listed = []
    for row in rows:
        entry = {key: row.get(key) for key in LISTED}
        job = live.get(row["id"])
        if job is not None:
            entry.update(status=job.status, progress=job.progress, progress_total=job.progress_total,
                         progress_message=job.progress_message)
        listed.append(entry)
    return listed
