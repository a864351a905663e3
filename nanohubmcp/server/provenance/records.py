"""Where provenance records live: in memory, or in ``provenance.sqlite3`` beside the job store.

A record is a JSON object (see :mod:`.capture` for its fields) with an id (random, URL-safe),
its owner (the principal, else the session, else nobody: see
:func:`~nanohubmcp.server.results.store.owner_of`), its creation time and its expiry. Records
live as long as finished jobs (the server's ``job_ttl_seconds``) and the store holds at most
``max_records`` (the oldest go first). Expired records are purged at most every few seconds,
on a write.

An unknown, expired and someone else's record read alike (None), so ids cannot be probed.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from ..jobs.record import PROVENANCE_META
from ..jobs.stores import open_database
from .capture import URI_PREFIX, JobEnd, PendingCall, build
from .writer import BatchWriter

log = logging.getLogger("nanohubmcp.provenance")

DB_FILE = "provenance.sqlite3"
META_KEY = PROVENANCE_META
"""The ``_meta`` key of a tool result (and of a finished job's) naming its record's URI."""
DEFAULT_MAX_RECORDS = 100_000
PURGE_EVERY_SECONDS = 10.0
SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    id TEXT PRIMARY KEY, owner TEXT, tool TEXT NOT NULL, created REAL NOT NULL, expires REAL NOT NULL,
    body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS records_by_expiry ON records(expires);
CREATE INDEX IF NOT EXISTS records_by_owner ON records(owner, created);
CREATE TABLE IF NOT EXISTS sources (hash TEXT PRIMARY KEY, source TEXT NOT NULL, used REAL NOT NULL);
"""
MAX_SOURCES = 10_000
"""Code sources kept at most (one per code hash; the least recently recorded go first)."""


Row = tuple[str, "str | None", str, float, float, dict[str, Any]]
"""A record as stored: its id, owner, tool, creation and expiry times, and its body."""


class RecordBackend(Protocol):
    """A place to keep records (memory or SQLite); safe from any thread."""

    def put_many(self, rows: list[Row], max_records: int) -> None:
        """Store (or replace) ``rows``: ``(id, owner, tool, created, expires, body)`` each."""

    def get(self, record_id: str) -> tuple[str | None, float, dict[str, Any]] | None: ...

    def of_owner(self, owner: str | None, limit: int) -> list[dict[str, Any]]: ...

    def recent(self, limit: int) -> list[dict[str, Any]]: ...

    def put_source(self, digest: str, source: str) -> None: ...

    def get_source(self, digest: str) -> str | None: ...

    def purge(self, now: float, max_records: int = DEFAULT_MAX_RECORDS) -> int: ...

    def close(self) -> None: ...


class MemoryRecords:
    """Records in an ordered dict (oldest first)."""

    def __init__(self) -> None:
        self._rows: OrderedDict[str, tuple[str | None, float, dict[str, Any]]] = OrderedDict()
        self._sources: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def put_many(self, rows: list[Row], max_records: int) -> None:
        with self._lock:
            for record_id, owner, _, _, expires, body in rows:
                self._rows[record_id] = (owner, expires, body)
                self._rows.move_to_end(record_id)
            while len(self._rows) > max_records:
                self._rows.popitem(last=False)

    def get(self, record_id: str) -> tuple[str | None, float, dict[str, Any]] | None:
        with self._lock:
            return self._rows.get(record_id)

    def of_owner(self, owner: str | None, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = [body for who, _, body in reversed(self._rows.values()) if who == owner]
        return rows[:limit]

    def recent(self, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            return [body for _, _, body in reversed(self._rows.values())][:limit]

    def put_source(self, digest: str, source: str) -> None:
        with self._lock:
            self._sources[digest] = source
            self._sources.move_to_end(digest)
            while len(self._sources) > MAX_SOURCES:
                self._sources.popitem(last=False)

    def get_source(self, digest: str) -> str | None:
        with self._lock:
            return self._sources.get(digest)

    def purge(self, now: float, max_records: int = DEFAULT_MAX_RECORDS) -> int:
        with self._lock:
            gone = [key for key, (_, expires, _) in self._rows.items() if expires < now]
            for key in gone:
                del self._rows[key]
        return len(gone)

    def close(self) -> None:
        pass


class SQLiteRecords:
    """Records in ``<state_dir>/provenance.sqlite3`` (WAL, one short transaction per write)."""

    def __init__(self, directory: str) -> None:
        self.path, self._db, _ = open_database(directory, DB_FILE, SCHEMA)
        weakref.finalize(self, self._db.close)
        self._lock = threading.Lock()

    def put_many(self, rows: list[Row], max_records: int) -> None:
        """Write ``rows`` in one transaction (a commit per record cost more than the rest of a record)."""
        texts = [
            (record_id, owner, tool, created, expires, json.dumps(body, separators=(",", ":"), default=str))
            for record_id, owner, tool, created, expires, body in rows
        ]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?)", texts)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def get(self, record_id: str) -> tuple[str | None, float, dict[str, Any]] | None:
        with self._lock:
            row = self._db.execute("SELECT owner, expires, body FROM records WHERE id = ?", (record_id,)).fetchone()
        return None if row is None else (row[0], row[1], json.loads(row[2]))

    def of_owner(self, owner: str | None, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT body FROM records WHERE owner IS ? ORDER BY created DESC LIMIT ?", (owner, limit)
            ).fetchall()
        return [json.loads(row[0]) for row in rows]

    def recent(self, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT body FROM records ORDER BY created DESC LIMIT ?", (limit,)).fetchall()
        return [json.loads(row[0]) for row in rows]

    def put_source(self, digest: str, source: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO sources VALUES (?, ?, ?)", (digest, source, time.time()))
            self._db.execute(
                "DELETE FROM sources WHERE hash NOT IN (SELECT hash FROM sources ORDER BY used DESC LIMIT ?)",
                (MAX_SOURCES,),
            )

    def get_source(self, digest: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT source FROM sources WHERE hash = ?", (digest,)).fetchone()
        return None if row is None else str(row[0])

    def purge(self, now: float, max_records: int = DEFAULT_MAX_RECORDS) -> int:
        with self._lock:
            gone = int(self._db.execute("DELETE FROM records WHERE expires < ?", (now,)).rowcount)
            over = self._db.execute("SELECT count(*) FROM records").fetchone()[0] - max_records
            if over > 0:  # the bound, kept on the purge's clock rather than counted on every write
                gone += int(
                    self._db.execute(
                        "DELETE FROM records WHERE id IN (SELECT id FROM records ORDER BY created LIMIT ?)", (over,)
                    ).rowcount
                )
            return gone

    def close(self) -> None:
        with self._lock:
            self._db.close()


class ProvenanceStore:
    """The server's provenance records (opened on first use: building a server writes nothing).

    A call's record is handed over as a pending item (:meth:`submit`: references only, on the
    call's path) and made and written by the store's writer thread in batches
    (:mod:`.writer`); every read first writes what is pending, so a call's record is readable as
    soon as its answer is out.

    Args:
        ttl: seconds a record stays readable (the job store's TTL).
        directory: a callable giving the state directory when records outlive the process
            (the job store's, when it is persistent), else None for memory.
        max_records: the most records kept (oldest dropped first).
    """

    def __init__(self, ttl: float, directory: Callable[[], str | None],
                 max_records: int = DEFAULT_MAX_RECORDS) -> None:
        self.ttl = ttl
        self.max_records = max_records
        self._directory = directory
        self._backend: RecordBackend | None = None
        self._purged = 0.0
        self._lock = threading.Lock()
        self._sources_kept: set[str] = set()
        self.pending: BatchWriter[PendingCall | JobEnd] = BatchWriter(self._write, name="nanohubmcp-provenance")
        """Records waiting to be made and written (:meth:`submit`)."""

    @property
    def backend(self) -> RecordBackend:
        if self._backend is None:
            with self._lock:
                if self._backend is None:
                    directory = self._directory()
                    backend: RecordBackend = MemoryRecords()
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

    def _write(self, items: list[PendingCall | JobEnd]) -> None:
        """The writer's batch: make each pending item's record (:func:`.capture.build`) and store
        them in one transaction; a failing disk is logged, never raised."""
        made: dict[str, tuple[str | None, dict[str, Any]]] = {}
        sources: dict[str, str] = {}

        def earlier(record_id: str) -> tuple[str | None, dict[str, Any]] | None:
            found = made.get(record_id)
            if found is not None:
                return found
            row = self.backend.get(record_id)
            return None if row is None else (row[0], row[2])

        for item in items:
            try:
                record = build(item, earlier)
            except Exception:  # one record that cannot be made must not cost the others
                log.exception("could not make a provenance record")
                continue
            if record is not None:
                record_id, owner, body, source = record
                made[record_id] = (owner, body)
                if source is not None:
                    sources[body["code"]["hash"]] = source
        if not made:
            return
        now = time.time()
        try:
            backend = self.backend
            for digest, source in sources.items():
                self._keep_source(backend, digest, source)
            rows = [
                (record_id, owner, str(body.get("tool", "")), float(body.get("created", now)), now + self.ttl, body)
                for record_id, (owner, body) in made.items()
            ]
            if now - self._purged > PURGE_EVERY_SECONDS:
                self._purged = now
                backend.purge(now, self.max_records)
            backend.put_many(rows, self.max_records)
        except sqlite3.Error as exc:
            log.warning("could not store %d provenance record(s): %s", len(made), exc)

    def get(self, record_id: str, owner: str | None) -> dict[str, Any] | None:
        """The record ``record_id`` when ``owner`` owns it and it has not expired, else None.

        A record made without principal or session (REST, the 2026-07-28 era) is read by
        whoever holds its id, like such a job."""
        self.pending.drain()
        row = self.backend.get(record_id)
        if row is None:
            return None
        who, expires, body = row
        if expires < time.time() or (who is not None and who != owner):
            return None
        return body

    def keep_source(self, digest: str, source: str | None) -> None:
        """Keep the source text of code ``digest`` (once per digest and process)."""
        try:
            self._keep_source(self.backend, digest, source)
        except sqlite3.Error as exc:
            log.warning("could not store the source of %s: %s", digest, exc)

    def _keep_source(self, backend: RecordBackend, digest: str, source: str | None) -> None:
        if source is None or digest in self._sources_kept:
            return
        backend.put_source(digest, source)
        self._sources_kept.add(digest)

    def source(self, digest: str) -> str | None:
        """The source text of code ``digest``, if kept."""
        self.pending.drain()
        return self.backend.get_source(digest)

    def find(self, record_id: str) -> dict[str, Any] | None:
        """Record ``record_id`` of any owner, for the server's operator (``%mcp history ID``)."""
        self.pending.drain()
        row = self.backend.get(record_id)
        return row[2] if row is not None and row[1] >= time.time() else None

    def of_owner(self, owner: str | None, limit: int = 50) -> list[dict[str, Any]]:
        """The newest ``limit`` records of ``owner`` (never anyone else's), newest first."""
        self.pending.drain()
        self._purge()
        return self.backend.of_owner(owner, limit)

    def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest ``limit`` records of every owner, for the server's operator (``%mcp history``)."""
        self.pending.drain()
        self._purge()
        return self.backend.recent(limit)

    def _purge(self) -> None:
        try:
            self.backend.purge(time.time(), self.max_records)
        except sqlite3.Error as exc:
            log.warning("could not purge provenance records: %s", exc)

    def close(self) -> None:
        self.pending.close()
        if self._backend is not None:
            self._backend.close()
            self._backend = None


def record_uri(record_id: str) -> str:
    """The URI of record ``record_id``."""
    return URI_PREFIX + record_id


def record_id_of(uri: str) -> str | None:
    """The record id in a provenance URI, or None when ``uri`` is not one."""
    if not uri.startswith(URI_PREFIX):
        return None
    rest = uri[len(URI_PREFIX) :]
    return rest if rest and len(rest) <= 64 and all(c.isalnum() or c in "-_" for c in rest) else None
