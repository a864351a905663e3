"""Jobs and the sessions that started them: whose live jobs are whose, and whether a job's session ended.

A job started in a session stays that session's while the session lives (the rule is
:mod:`.visibility`'s). A record keeps the session's key, never its id (:func:`keyed`). A session's end
is known in one of two ways:

- the process that held the session stores ``session_ended`` in the records of the session's jobs it
  runs (:meth:`JobSessions.ended`: a DELETE, idle expiry, eviction, the server's stop — ``ServerCore``
  hears every close of its ``SessionStore``), so every process sharing the store knows;
- with a shared Redis a session lives on every process there and its idle expiry tells none of them:
  the session's own record is read instead, gone once the session ended (:meth:`JobSessions.gone`).

For the first, :class:`JobSessions` keeps an index of this process's live jobs by session key,
dropped as the job store forgets expired jobs (:meth:`JobSessions.forget`). Nothing here decides who
sees a job.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...state.errors import StateUnavailable
from ..wire.sessions import session_key

if TYPE_CHECKING:
    from .backend import JobBackend
    from .record import Job

__all__ = ["JobSessions", "keyed"]


def keyed(session_id: str | None) -> str | None:
    """What a job keeps of the session that started it: its key, never its id (:func:`session_key`)."""
    return None if session_id is None else session_key(session_id)


class JobSessions:
    """The sessions of this process's live jobs, and what the job store knows of their ends.

    Args:
        live: the live jobs of this process, by id (the job store's).
        backend: the job store's back end, opened on first use.
        opened: whether the back end is open yet (a look at a session must not open it).
        persistent: whether records outlive the process (a memory store writes nothing).
        write: writes fields into a job's record, best effort (:meth:`.writes.JobWrites.write`).
    """

    def __init__(self, live: Mapping[str, Job], backend: Callable[[], JobBackend], opened: Callable[[], bool],
                 persistent: Callable[[], bool], write: Callable[[str, dict[str, Any]], None]) -> None:
        self._live = live
        self._backend = backend
        self._opened = opened
        self._persistent = persistent
        self._write = write
        self._of_session: dict[str, set[str]] = {}  # session key -> ids of its jobs in live (ended)

    def started(self, job: Job) -> None:
        """``job`` (live here) was started; in a session, it is indexed under the session's key."""
        if job.owner is not None:
            self._of_session.setdefault(job.owner, set()).add(job.id)

    def forget(self, job: Job) -> None:
        """``job`` is no longer live here (it expired): out of its session's index."""
        ids = self._of_session.get(job.owner or "")
        if ids is not None:
            ids.discard(job.id)
            if not ids:
                del self._of_session[job.owner or ""]

    def ended(self, session_id: str) -> None:
        """The session ``session_id``, held by this process, ended (a DELETE, idle expiry,
        eviction, the server's stop): its jobs are read by their id from now on, as after a stop
        (:mod:`.visibility`). Stored in their records, so every process sharing the store knows.
        (With a shared Redis the job store reads the session's own record instead: a session lives
        on every process there, and its idle expiry tells none of them.)"""
        for job_id in self._of_session.pop(session_key(session_id), ()):
            job = self._live.get(job_id)
            if job is None or job.session_ended:
                continue
            job.session_ended = True
            if self._persistent():
                self._write(job_id, {"session_ended": True})

    def over(self, job: Job) -> bool:
        """Whether the session that started ``job`` (not the caller's) ended: stored by the process
        that held it, or (sessions in a shared Redis) its record gone."""
        if job.session_ended:
            return True
        return job.owner is not None and self._opened() and self.gone(job.owner)

    def gone(self, key: str) -> bool:
        """Whether the job store knows that the session of ``key`` (``session_key`` of its id)
        ended: with Redis, its record there is gone (False when it cannot tell, or when sessions are
        each process's own, which tells :meth:`ended`)."""
        try:
            return self._backend().session_gone(key)
        except (sqlite3.Error, StateUnavailable):  # cannot tell: the session's job stays its own
            return False
