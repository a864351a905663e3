"""How provenance records are made and written: the queue of pending items a call hands over
(:mod:`.writer`), each made into a row (:func:`.capture.build`) and a batch of rows stored in one
transaction, with the purges of expired records and of facts no record refers to any more.

What is read of the records (a record by its id, an owner's, the newest) is :mod:`.records`'; this module
never answers a read.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable

from ..results.owners import SESSION_OWNER
from . import code_facts
from .capture import build
from .handover import JobEnd, PendingCall
from .owner_share import OwnerShares
from .record_backend import RecordBackend
from .rows import CallRow, storable
from .writer import BatchWriter

__all__ = ["FACTS_PURGE_EVERY", "MAKE_AT_ONCE", "PURGE_EVERY_SECONDS", "RecordWrites"]

log = logging.getLogger("nanohubmcp.provenance")

PURGE_EVERY_SECONDS = 10.0
FACTS_PURGE_EVERY = 60
"""Purges between two purges of the facts no record refers to any more (and between two sweeps of
expired records wherever they are: :meth:`.record_db.SQLiteRecords.purge`)."""
MAKE_AT_ONCE = 16
"""Records made between two yields of the interpreter (a batch's rows are then written in one
transaction): making one holds the interpreter some microseconds, so a call served meanwhile on
the event loop is not held up by a whole batch."""


class RecordWrites:
    """The records of one store waiting to be made, and their making and writing.

    Args:
        backend: the store's back end (opened at its first use).
        ttl: seconds a record stays readable.
        max_records: the most records kept (oldest dropped first).
        shares: each owner's share of the records (:mod:`.owner_share`).
        notes_sessions: whether the sessions that made records are noted (:attr:`recorded_sessions`:
            each process keeps its own sessions; in a shared Redis the store says when one ended).
    """

    def __init__(self, backend: Callable[[], RecordBackend], ttl: float, max_records: int, shares: OwnerShares,
                 *, notes_sessions: bool) -> None:
        self._backend = backend
        self.ttl = ttl
        self.max_records = max_records
        self.shares = shares
        self._notes = notes_sessions
        self.recorded_sessions: set[str] = set()
        """Keys of the sessions of this process with records made (bounded by its live sessions)."""
        self._purged = 0.0
        self._purges = 0
        self._sources_kept: set[str] = set()
        self._facts_kept: set[str] = set()
        self.table_wait = code_facts.TableWait()
        """Whether these records wait for the installed distributions' table."""
        self.pending: BatchWriter[PendingCall | JobEnd] = BatchWriter(self.write, name="nanohubmcp-provenance")
        """Records waiting to be made and written."""

    def write(self, items: list[PendingCall | JobEnd]) -> None:
        """The writer's batch: make each pending item's row (:func:`.capture.build`) and store
        them in one transaction; a failing disk is logged, never raised."""
        now = time.time()
        try:
            backend = self._backend()
            if now - self._purged > PURGE_EVERY_SECONDS:  # first: a purge of facts forgets which are stored
                self._purge(backend, now)
        except sqlite3.Error as exc:
            log.warning("could not purge provenance records: %s", exc)
        made: dict[str, CallRow] = {}
        facts: dict[str, str] = {}
        sources: dict[str, str] = {}
        kept = self._facts_kept

        def earlier(record_id: str) -> CallRow | None:
            return made.get(record_id) or self._backend().get_row(record_id)

        expires = now + self.ttl
        notes = self._notes
        noted: str | None = None
        for index, item in enumerate(items):
            if index and not index % MAKE_AT_ONCE:
                time.sleep(0)  # let the serving loop run
            try:
                record = build(item, earlier, now, expires, self.table_wait)
            except Exception:  # one record that cannot be made must not cost the others
                log.exception("could not make a provenance record")
                continue
            if record is not None:
                row, fact, source = record
                made[row.id] = row
                owner = row.owner
                # (a session's records share one owner text, session_names.session_names: noted once a run of them)
                if owner is not noted and owner is not None and owner.startswith(SESSION_OWNER) and notes:
                    self.recorded_sessions.add(owner[len(SESSION_OWNER):])  # (the session's key)
                    noted = owner
                if fact is not None and fact[0] not in kept:
                    facts[fact[0]] = fact[1]
                if source is not None and source[0] not in self._sources_kept:
                    sources[source[0]] = source[1]
        if not made:
            return
        try:
            for digest, text in sources.items():
                self._keep_source(backend, digest, text)
            rows = list(made.values())
            try:
                self._put(backend, rows, facts)
            except sqlite3.OperationalError:  # the file (locked, full, unreadable): every row alike
                raise
            except Exception as exc:  # a row that cannot be stored must not cost the others: each on its own
                self._put_each(backend, rows, facts, exc)
            kept.update(facts)
            self.shares.wrote(backend, [row.owner for row in rows])
        except sqlite3.Error as exc:
            log.warning("could not store %d provenance record(s): %s", len(made), exc)

    def _put(self, backend: RecordBackend, rows: list[CallRow], facts: dict[str, str]) -> None:
        try:
            backend.put_many(rows, facts, self.max_records)
        except UnicodeEncodeError:  # a text holding a lone surrogate a client sent (nothing written): as
            # UTF-8 holds it, and again (made only then: ~35k instructions a record for every batch before,
            # bench/provenance.md ninth pass)
            backend.put_many([storable(row) for row in rows], facts, self.max_records)

    def _put_each(self, backend: RecordBackend, rows: list[CallRow], facts: dict[str, str], exc: Exception) -> None:
        """Write ``rows`` one at a time after their batch failed with ``exc``, logging one line
        (no traceback) for each row that cannot be stored."""
        for row in rows:
            if len(rows) > 1:
                try:
                    self._put(backend, [row], facts)
                    continue
                except sqlite3.OperationalError:
                    raise
                except Exception as error:
                    exc = error
            log.warning("could not store provenance record %s of tool %r: %s", row.id, row.tool, exc)

    def _purge(self, backend: RecordBackend, now: float) -> None:
        self._purged = now
        # a sweep at the first purge and then every FACTS_PURGE_EVERY: the purges between read only what they delete
        backend.purge(now, self.max_records, sweep=self._purges % FACTS_PURGE_EVERY == 0)
        self._purges += 1
        if self._purges % FACTS_PURGE_EVERY == 0:
            backend.purge_facts()
            self._facts_kept.clear()  # written again with the next row that refers to them

    def _keep_source(self, backend: RecordBackend, digest: str, source: str | None) -> None:
        if source is None or digest in self._sources_kept:
            return
        backend.put_source(digest, source)
        self._sources_kept.add(digest)
