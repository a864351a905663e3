"""Where provenance records live: in memory, or in ``provenance.sqlite3`` beside the job store
(:mod:`.record_db`).

A record (see :mod:`.capture` for its fields) has an id (random, URL-safe), its owner (the
principal, else the session, else nobody: see
:func:`~nanohubmcp.server.results.owners.owner_of`), its creation time and its expiry. It is
stored as a row of columns and a reference to the facts its tool's records share, and read as
a JSON object made from them (:mod:`.rows`). Records live as long as finished jobs (the
server's ``job_ttl_seconds``); each owner keeps at most ``max_records_per_owner`` (its oldest go first:
:mod:`.owner_share`) and the store at most ``max_records`` in all (the oldest go first).
Expired records read as missing and are purged at most every few seconds, on a write.

An unknown, expired and someone else's record read alike (None), so ids cannot be probed.

A record its session owns (made without a principal) is read by its id by any caller without a
principal once that session ended, as a job of an ended session is (:mod:`..jobs.visibility`).
How the store knows: sessions kept by this process are told to it when they close
(:meth:`ProvenanceStore.session_ended`: a DELETE, idle expiry, eviction, the server's stop) and it
keeps the ended ones that made records (beside the records, so every process sharing them knows);
sessions in a shared Redis are asked of it (``session_gone``).
"""

from __future__ import annotations

import asyncio
import logging
import numbers
import operator
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from ...protocol.message_values import shown_value
from ...protocol.uris import comparison_form
from ..jobs.record import PROVENANCE_META
from ..results.owners import SESSION_OWNER
from ..wire.sessions import session_digest, session_key
from .awaited import AwaitedRecords
from .handover import JobEnd, PendingCall
from .owner_share import OwnerShares
from .record_backend import RecordBackend
from .record_db import DB_FILE, SQLiteRecords
from .record_ids import may_be_record_id
from .record_memory import MemoryRecords
from .record_writes import RecordWrites
from .rows import URI_PREFIX
from .writer import DELAY_SECONDS

__all__ = ["DB_FILE", "META_KEY", "SHOWN_ID_CHARS", "ProvenanceStore", "SQLiteRecords",
           "no_record", "record_id_of", "record_uri"]

log = logging.getLogger("nanohubmcp.provenance")

META_KEY = PROVENANCE_META
"""The ``_meta`` key of a tool result (and of a finished job's) naming its record's URI."""
DEFAULT_MAX_RECORDS = 100_000


ELSEWHERE_SECONDS = DELAY_SECONDS + 4.0
"""How long a read waits for a record another process sharing the records may still hold in its
writer's batch (:meth:`ProvenanceStore.get_written_elsewhere`, only when the store is ``shared``): the
batch's gathering, and time for the writing (a process's first batch waits for the installed
distributions' table, seconds on a busy machine)."""


class ProvenanceStore:
    """The server's provenance records (opened on first use: building a server writes nothing).

    A call's record is handed over as a pending item (:meth:`submit`: references only, on the
    call's path) and made and written by the store's writer thread in batches
    (:mod:`.record_writes`, :mod:`.writer`); every read first writes what is pending, so a call's record is readable as
    soon as its answer is out.

    Args:
        ttl: seconds a record stays readable (the job store's TTL).
        directory: a callable giving the state directory when records outlive the process
            (the job store's, when it is persistent), else None for memory.
        max_records: the most records kept (oldest dropped first).
        max_records_per_owner: the most records one owner keeps (its oldest dropped first; by default
            :data:`DEFAULT_MAX_RECORDS` and ``max_records`` alike, a tenth of it).
        session_gone: when the server's sessions live in a shared store (Redis), whether the
            session of a key (``session_key`` of its id) ended there; None when each process keeps
            its own sessions and says when one ends (:meth:`session_ended`).
        shared: whether other processes may write records to the same file: a shared state URL
            (which ``--workers`` above 1 needs) or a state directory the user named. Only then does
            a read of a record not found wait for their writers (:meth:`get_written_elsewhere`).

    .. versionchanged:: 1.0
       ``shared``: a store of one process answers a record it does not hold at once (it waited 5 s).
       ``max_records_per_owner``: one owner's calls no longer push every other owner's records out.
    """

    def __init__(self, ttl: float, directory: Callable[[], str | None],
                 max_records: int = DEFAULT_MAX_RECORDS, session_gone: Callable[[str], bool] | None = None,
                 *, shared: bool = False, max_records_per_owner: int | None = None) -> None:
        self.ttl = ttl
        self.max_records = max_records
        self.shares = OwnerShares(max(1, max_records // 10) if max_records_per_owner is None else max_records_per_owner)
        """Each owner's share of the records (:mod:`.owner_share`)."""
        self.shared = shared
        """Whether other processes may write these records (see the class's Args)."""
        self._directory = directory
        self._session_gone = session_gone
        self._backend: RecordBackend | None = None
        self._lock = threading.Lock()
        self._awaited: AwaitedRecords | None = None
        self.writes = RecordWrites(lambda: self.backend, ttl, max_records, self.shares,
                                   notes_sessions=session_gone is None)
        """How the records are made and written (:mod:`.record_writes`)."""
        self.table_wait = self.writes.table_wait
        """Whether this store's records wait for the installed distributions' table (:meth:`stopping`)."""
        self.pending = self.writes.pending
        """Records waiting to be made and written (:meth:`submit`)."""

    @property
    def backend(self) -> RecordBackend:
        if self._backend is None:
            with self._lock:
                if self._backend is None:
                    directory = self._directory()
                    backend: RecordBackend = MemoryRecords(self.shares.per_owner)
                    if directory is not None:
                        try:
                            backend = SQLiteRecords(directory)
                        except (OSError, sqlite3.Error) as exc:
                            log.warning("cannot keep provenance records in %s (%s): kept in memory", directory, exc)
                    self._backend = backend
        return self._backend

    def submit(self, item: PendingCall | JobEnd) -> bool:
        """Queue ``item`` for the writer (never blocks); False when the queue was full and it was dropped."""
        return self.pending.add(item)

    def get(self, record_id: str, owner: str | None) -> dict[str, Any] | None:
        """The record ``record_id`` when ``owner`` owns it and it has not expired, else None.

        A record made without principal or session (REST, the 2026-07-28 era) is read by
        whoever holds its id, like such a job."""
        self.pending.drain()
        return self._lookup(record_id, owner)

    async def get_written_elsewhere(self, record_id: str, owner: str | None) -> dict[str, Any] | None:
        """:meth:`get` for a record another process may make: processes sharing the records (one
        state directory) write them in batches gathered up to :data:`~.writer.DELAY_SECONDS`, so in a
        :attr:`shared` store a record not stored yet is waited for up to :data:`ELSEWHERE_SECONDS`
        (:mod:`.awaited`: one thread looks for all such records; past its bound of waiting reads one is
        answered None at once). In a shared store the lookups run on a worker thread, never on the
        event loop (the writer holds the file through its batches). A store not shared (no other
        process writes to it), records in memory (this process's only), and a record stored but not
        this caller's to read (its session may end meanwhile) are looked for once.

        An id no process mints (:func:`~.record_ids.may_be_record_id`: not 24 URL-safe characters) is
        answered None at once.

        .. versionchanged:: 1.0
           Waiting reads share one look per tick, off the loop, and are bounded in number (each
           polled the file on the loop every 50 ms). An id that cannot be a record's is not waited for.
        """
        if not self.shared:
            return self.get(record_id, owner)
        if not may_be_record_id(record_id):
            return None  # no process mints it: nothing to wait for (the wait told it from another's record)
        body, stored = await asyncio.to_thread(self._look, record_id, owner)
        backend = self.backend
        if stored or not isinstance(backend, SQLiteRecords):
            return body  # found; not this caller's to read; or this process's only
        if not await self._awaited_in(backend).written(record_id, owner, ELSEWHERE_SECONDS):
            return None
        return await asyncio.to_thread(self._lookup, record_id, owner)

    def _awaited_in(self, backend: SQLiteRecords) -> AwaitedRecords:
        with self._lock:
            if self._awaited is None:
                self._awaited = AwaitedRecords(backend)
            return self._awaited

    def _look(self, record_id: str, owner: str | None) -> tuple[dict[str, Any] | None, bool]:
        """:meth:`get` of ``record_id``, and whether it is stored at all (readable by ``owner`` or not)."""
        self.pending.drain()
        row = self.backend.get(record_id)
        return (None, False) if row is None else (self._readable(row, owner), True)

    def _lookup(self, record_id: str, owner: str | None) -> dict[str, Any] | None:
        row = self.backend.get(record_id)
        return None if row is None else self._readable(row, owner)

    def _readable(self, row: tuple[str | None, float, dict[str, Any]], owner: str | None) -> dict[str, Any] | None:
        who, expires, body = row
        if expires < time.time() or (who is not None and who != owner and not self._ended_for(who, owner)):
            return None
        return body

    def _ended_for(self, who: str, caller: str | None) -> bool:
        """Whether ``caller`` (an owner key) reads a record of ``who``: a session's (no principal)
        once that session ended, by a caller without a principal."""
        if not who.startswith(SESSION_OWNER) or not (caller is None or caller.startswith(SESSION_OWNER)):
            return False
        key = who[len(SESSION_OWNER):]  # the session's key (an id in a row of an earlier version: migrated)
        try:
            if self._session_gone is not None:
                return self._session_gone(key)
            return self.backend.session_ended(key)
        except sqlite3.Error as exc:  # cannot tell: the record stays its session's
            log.warning("could not tell whether session %s ended: %s", key[:12], exc)
            return False

    def session_ended(self, session_id: str) -> None:
        """The session ``session_id``, held by this process, ended (a DELETE, idle expiry,
        eviction, the server's stop): its records are read by their id from now on. Kept beside
        the records (when it made any), so processes sharing them know; logged, never raised, when
        it cannot be."""
        if self._session_gone is not None:
            return
        self.pending.drain()  # its records not written yet are counted
        key = session_key(session_id)  # (what its records and the ended sessions name: never the id)
        recorded = self.writes.recorded_sessions
        with self._lock:
            if key not in recorded:
                return
            recorded.discard(key)
            backend = self._backend  # (None: the store was closed, at the process's end)
        try:
            if backend is not None:
                backend.end_session(key, time.time() + self.ttl, self.max_records)
        except sqlite3.Error as exc:
            log.warning("could not note that session %s ended (its records stay its own): %s",
                        session_digest(session_id), exc)

    def source(self, digest: str) -> str | None:
        """The source text of code ``digest``, if kept."""
        self.pending.drain()
        return self.backend.get_source(digest)

    def find(self, record_id: str) -> dict[str, Any] | None:
        """Record ``record_id`` of any owner, for the server's operator (``%mcp history ID``).

        ``record_id`` is the id or the whole URI a result's ``_meta`` names
        (``nanohubmcp://provenance/<id>``, as ``nanohubmcp provenance show`` takes it). None when no record
        has it (or it expired).

        Raises:
            TypeError: ``record_id`` is not a ``str`` (None, a number: no record's id).
        """
        if not isinstance(record_id, str):
            raise TypeError(f"find() takes a record's id or URI as a str, not {type(record_id).__name__}")
        record_id = record_id_of(record_id) or record_id
        self.pending.drain()
        row = self.backend.get(record_id)
        return row[2] if row is not None and row[1] >= time.time() else None

    def of_owner(self, owner: str | None, limit: int = 50) -> list[dict[str, Any]]:
        """The newest ``limit`` records of ``owner`` (never anyone else's), newest first."""
        self.pending.drain()
        return self.backend.of_owner(owner, limit, time.time())

    def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest ``limit`` records of every owner, for the server's operator (``%mcp history``).

        Args:
            limit: how many: an ``int``, or any integer (``numbers.Integral``: a numpy integer), as a slice takes.
        Raises:
            TypeError: ``limit`` is no integer (a bool, a float, None).
            ValueError: ``limit`` is below 0 (SQLite reads a negative limit as none: every record).

        .. versionchanged:: 1.0
           A numpy integer (``np.int64(2)``) is taken; it was a ``TypeError``.
        """
        if isinstance(limit, bool) or not isinstance(limit, numbers.Integral):
            raise TypeError(f"recent() takes how many records as an int, not {type(limit).__name__}")
        limit = operator.index(limit)
        if limit < 0:
            raise ValueError(f"recent() takes how many records, 0 or more, not {limit}")
        self.pending.drain()
        return self.backend.recent(limit, time.time())

    def stopping(self) -> None:
        """The server stops: write what is pending now, on this thread (the event loop's), without waiting for
        the installed distributions' table (:meth:`.code_facts.TableWait.stop`: seconds in a worker of
        ``--workers``, which reads it again after its fork, or on a slow disk; this store's records made before
        it is read say ``packages_complete: false``, another server's of the process wait on), until the server
        serves again (:meth:`serving`)."""
        self.table_wait.stop()
        self.pending.drain()

    def serving(self) -> None:
        """The server serves (again): records wait for the distributions' table again (:meth:`stopping`)."""
        self.table_wait.serve()

    def close(self) -> None:
        self.pending.close()
        if self._backend is not None:
            self._backend.close()
            self._backend = None


def record_uri(record_id: str) -> str:
    """The URI of record ``record_id``."""
    return URI_PREFIX + record_id


SHOWN_ID_CHARS = 200
"""How much of a record id the not-found message repeats, quotes included, as a REST 404 repeats a name."""


def no_record(call_id: str, where: str) -> str:
    """The message for a record ``call_id`` not found ``where`` (``"in /path/to/state"``, ``"here"``): the
    same from ``provenance export`` and ``provenance show``. An id of over :data:`SHOWN_ID_CHARS` characters is
    named cut (a real one has 24)."""
    named = shown_value(call_id, SHOWN_ID_CHARS)
    return (f"no provenance record {named} {where} (unknown, or expired with the job store's TTL); "
            "the id is the end of the URI in a result's _meta['io.nanohub/provenance']; "
            "nanohubmcp provenance list (in a notebook, %mcp history) lists the records")


def record_id_of(uri: str) -> str | None:
    """The record id in a provenance URI, or None when ``uri`` is not one.

    ``uri`` is compared as ``resources/read`` compares a registered resource's
    (:func:`~nanohubmcp.protocol.uris.comparison_form`): ``NANOHUBMCP://%70rovenance/<id>`` names record
    ``<id>``. The id is taken exactly as it then reads (ids have case)."""
    uri = comparison_form(uri)
    if not uri.startswith(URI_PREFIX):
        return None
    rest = uri[len(URI_PREFIX) :]
    return rest if rest and len(rest) <= 64 and all(c.isalnum() or c in "-_" for c in rest) else None
