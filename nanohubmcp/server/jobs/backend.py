"""What the job store needs of a place to keep its records (:class:`JobBackend`), and the rules every back end shares.

A record is a flat dict of the columns in :data:`~.sqlite_file.COLUMNS`; ``arguments``, ``result``,
``error`` and ``meta`` hold JSON values. Every back end takes the same calls, is safe from any thread, and
enforces the store's bounds in the same transaction that adds a job (:func:`check_limits`, refusing with
:func:`limit_message`'s text), so two servers sharing a file cannot both slip past a limit. The back ends:
in memory (:class:`~.stores.MemoryBackend`), one SQLite file (:class:`~.sqlite_store.SQLiteBackend`), a
shared Redis (``nanohubmcp.state.redis_jobs``); :func:`~.stores.open_backend` picks one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ...errors import JobLimitReached

__all__ = ["Guess", "JobBackend", "KeptData", "Untold", "check_limits", "limit_message"]

def limit_message(scope: str, limit: int, option: str) -> str:
    """The refusal text of a full store."""
    return (f"Too many jobs {scope}: the server keeps at most {limit} (option {option}). Wait until "
            "earlier jobs finish and expire, or ask the server's operator to raise the limit.")


KeptData = list[dict[str, Any]]
"""A job's ``kept_data``: the blocks its MCP answers give for its data over ``max_inline_bytes``
(:mod:`~..executors.polled_data`)."""

Guess = tuple[str, str]
"""``(runner, status message)`` of the one stored end a job's own end may replace (``JobBackend.end``)."""


class JobBackend(Protocol):
    """What the job store needs from a place to keep records (see :class:`~.sqlite_store.SQLiteBackend`)."""

    persistent: bool
    tells_ends: bool
    """True when the back end tells this process of the ends other processes store for jobs it
    waits for (:meth:`awaited`; Redis), so a wait reads the record seldom (:mod:`.far_ends`)."""

    def insert(self, record: dict[str, Any], *, max_total: int, max_per_owner: int) -> None:
        """Add a record unless a bound is reached (raises :class:`JobLimitReached`)."""

    def update(self, job_id: str, fields: dict[str, Any]) -> None:
        """Set ``fields`` of one record."""

    def end(self, job_id: str, fields: dict[str, Any], guess: Guess | None = None) -> bool:
        """Store a job's end (``fields`` with a terminal ``status``) unless its record already holds
        one: a cancel stored by another process is never replaced by the function's own end. The
        one end replaced is ``guess`` (a runner and a message): a ``failed`` end with that message
        that another process stored for a job of that runner when the runner looked dead (its
        heartbeat lapsed while the shared store was away), which the runner's real end replaces.
        True when written."""

    def changed(self, job_id: str, fields: dict[str, Any]) -> bool:
        """Set ``fields`` (a running job's ``status``, ``input_requests``, ``updated``) unless the record
        holds an end already (a cancel another process stored wins); a back end that
        :attr:`tells_ends` also tells the processes following the job (:meth:`awaited` with
        ``follow``). True when written."""

    def answer(self, job_id: str, answers: dict[str, Any]) -> None:
        """Keep ``answers`` to a task's input requests, received by this process, for the process
        running the task, and tell it (a back end that :attr:`tells_ends`; the others carry none:
        the job store asks only one that does)."""

    def take_answers(self, job_id: str) -> list[dict[str, Any]]:
        """The answers other processes kept for the task ``job_id`` (:meth:`answer`), taken."""

    def keep_data(self, job_id: str, blocks: KeptData | None, replacing: KeptData | None) -> KeptData | None:
        """Store ``blocks`` as the job's ``kept_data`` (the ``[note, resource_link]`` its MCP answers give for its
        data over ``max_inline_bytes``, or a keep's reservation: :mod:`~..executors.kept_slot`; None: none)
        unless the record holds another than ``replacing`` (None: none; else the one read before), in one step:
        of several processes keeping one job's data at once, the first stored wins. Returns the ``kept_data``
        the record holds now (``blocks``, or the winner's), None when it holds none or the record is gone.
        A back end compares a reservation as any other value; only the keep reads it (as "not kept yet").

        .. versionchanged:: 1.0
           ``blocks`` None clears it (a keep's reservation released).
        """

    def progress(self, job_id: str, progress: float, total: float | None, message: str | None,
                 updated: float) -> None:
        """Record one progress update (and count it) made at ``updated`` (epoch seconds; the record's
        ``updated`` unless it holds an end, so another process reading the record never answers an
        older ``lastUpdatedAt`` than this one did); a back end that :attr:`tells_ends` tells the
        processes following the job (:meth:`awaited` with ``follow``)."""

    def load(self, job_id: str) -> dict[str, Any] | None:
        """The record, or None."""

    def awaited(self, job_id: str, *, follow: bool = False) -> dict[str, Any] | None:
        """The record, or None, read by a process that waits for the job's end (with ``follow``: that
        follows its changes too): a back end that :attr:`tells_ends` marks the job so, in the same
        step, and tells that process once another stores the end (with ``follow``, also a status,
        :meth:`changed`, or progress)."""

    def newest(self, limit: int) -> list[str]:
        """Ids of the newest ``limit`` records of every owner, newest first (never the records: their
        fields are read with :meth:`summaries`)."""

    def owner_index(self, owner_key: str, *, since: float, start: int, count: int) -> list[tuple[str, float]]:
        """Ids of one owner's records with their creation times, oldest first (ties by id): of those
        created at ``since`` or later, ``count`` from the ``start``-th on."""

    def principal_matches(self, stored: str, subject: str) -> bool:
        """Whether a record's ``principal_digest`` (a back end that holds a principal's digest instead of its subject:
        Redis) is the digest of ``subject``; False in a back end that holds subjects (it stores no digest)."""

    def summaries(self, ids: Sequence[str], names: Sequence[str]) -> list[dict[str, Any]]:
        """Only the fields ``names`` (``"id"`` among them) of the records of ``ids`` still stored, in
        that order: a record's other fields (its result...) are not read."""

    def unfinished(self) -> list[dict[str, Any]]:
        """Records not in a terminal state."""

    def purge(self, now: float) -> list[str]:
        """Delete finished records past their ttl; returns their ids."""

    def earliest_expiry(self) -> float | None:
        """When the first finished record expires (epoch seconds; past: expired, not purged yet), where the back end
        keeps that at hand (an index, memory: one look, never a read of every record); None when no record has
        finished (or, in Redis, none the index holds yet: an earlier version's, until the purge's walk scores it)."""

    def session_gone(self, key: str) -> bool:
        """Whether the store knows that the session of ``key`` (``session_key`` of its id) ended: True when the server's
        sessions live beside the jobs (Redis) and its record is gone; False when it cannot tell
        (sessions are each process's own, which tells the job store itself: ``JobStore.session_ended``)."""

    def close(self) -> None:
        """Release the back end."""


class Untold:
    """What a back end that tells no other process (:attr:`JobBackend.tells_ends` False) answers for
    the calls only a telling one carries out: the job store never asks it."""

    tells_ends = False

    def answer(self, job_id: str, answers: dict[str, Any]) -> None:
        pass

    def take_answers(self, job_id: str) -> list[dict[str, Any]]:
        return []

    def principal_matches(self, stored: str, subject: str) -> bool:
        return False  # (it holds subjects: a record of it names no digest)


def check_limits(total: int, owned: int, max_total: int, max_per_owner: int) -> None:
    """Refuse one more job when the store holds ``max_total`` (``total``: counted in the adding transaction)
    or its owner ``max_per_owner`` (``owned``).

    Raises:
        JobLimitReached: a bound is reached (:func:`limit_message` names it and the option that sets it).
    """
    if total >= max_total:
        raise JobLimitReached(limit_message("on this server", max_total, "max_jobs"))
    if owned >= max_per_owner:
        raise JobLimitReached(limit_message("for one client", max_per_owner, "max_jobs_per_owner"), per_owner=True)
