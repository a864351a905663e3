"""Provenance records in ``<state_dir>/provenance.sqlite3`` (WAL; shared by the server processes
using the directory).

Tables: ``calls`` (one row per record, the columns of :class:`.rows.CallRow`, in the order
written: ``seq``), ``facts`` (the per-tool, per-process facts rows refer to, once each),
``sources`` (a tool's code text per code hash) and ``ended_sessions`` (the sessions that made
records and ended, until their records expired: their records are read by their id, see
:meth:`.records.ProvenanceStore.get`; a file of an earlier version gains the table when opened).
``id`` is indexed (a read is by id), and ``(owner, seq)`` (an owner's share: :meth:`SQLiteRecords.trim_owner`
deletes an owner's oldest rows past it in one statement; an owner's listing); a listing of every owner walks
the rows newest first (``seq``) until it has enough, and a purge (every few seconds, on a write) deletes the
oldest rows while they have expired, reading from the oldest on (a sweep of the whole table every few
minutes). A file of an earlier version gains the owners' index when it is opened. A record id begins
with a per-process run of characters (see :class:`.layer.RecordIds`), so a batch's ids land on a few pages of the id
index.

A database of the first schema (a ``records`` table of one JSON text per record) is migrated
when it is opened: its rows move into ``calls`` as they are (their JSON in the ``body`` column,
read as before) in one transaction. A server of the earlier version still writing to the same
file then logs that it cannot store its records.
"""

from __future__ import annotations

import functools
import logging
import operator
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection
from itertools import chain
from pathlib import Path
from typing import Any

from ..jobs.sqlite_file import close_when_collected, open_database, rekey_sessions
from ..results.owners import PRINCIPAL_OWNER, SESSION_OWNER
from .rows import COLUMNS, CallRow, parse_facts, view

log = logging.getLogger("nanohubmcp.provenance")

DB_FILE = "provenance.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, owner TEXT, tool TEXT NOT NULL, facts TEXT,
    created REAL NOT NULL, expires REAL NOT NULL, principal TEXT, session TEXT, request_id,
    protocol_version TEXT, trace_id TEXT, span_id TEXT, started REAL, ended REAL, executor TEXT, thread TEXT,
    status TEXT, result_digest TEXT, result TEXT, resource_links TEXT, cache TEXT, arguments TEXT, extra TEXT,
    body TEXT);
CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (hash TEXT PRIMARY KEY, source TEXT NOT NULL, used REAL NOT NULL);
CREATE TABLE IF NOT EXISTS ended_sessions (session TEXT PRIMARY KEY, expires REAL NOT NULL);
CREATE INDEX IF NOT EXISTS calls_by_owner ON calls(owner, seq);
"""
FIRST_SCHEMA_TABLE = "records"
"""The table of the first schema (``id, owner, tool, created, expires, body``)."""
MAX_SOURCES = 10_000
"""Code sources kept at most (one per code hash; the least recently recorded go first)."""
IDS_PER_LOOK = 500
"""Record ids looked for in one statement, at most (:meth:`SQLiteRecords.written`)."""
MAX_FACTS_CACHED = 1024
"""Parsed facts kept in memory at most (read far more often than there are tools)."""

_NAMES = ", ".join(COLUMNS)
_SELECT = f"SELECT {_NAMES} FROM calls"
Picker = Callable[[CallRow], tuple[Any, ...]]
ROWS_PER_STATEMENT = 64
"""Rows inserted by one statement: ``executemany`` would take and give back the interpreter's lock
around every row (a hand-over to and from the event loop's thread each time under load); one
statement of many rows gives it up once."""


@functools.lru_cache(maxsize=256)
def _insert(kept: tuple[int, ...], shared: tuple[int, ...], count: int) -> tuple[str, Picker, Picker]:
    """The statement inserting ``count`` rows of the columns at indexes ``kept`` (the others are
    NULL) where the columns at indexes ``shared`` (some of ``kept``) hold one value in every row,
    bound once as a numbered parameter (``?1`` … ``?k``) that each row refers to; and what picks,
    from a row, the shared values and the row's own. The first row numbers its own values
    (``?k+1`` …); the others use plain ``?``, which SQLite numbers past the largest number used
    before it, so they share one text (the statement is built without a loop over its cells)."""
    number = {index: f"?{place}" for place, index in enumerate(shared, 1)}
    own = tuple(index for index in kept if index not in number)
    first = dict(number)  # the first row numbers its own values past the shared ones (a plain ? would be ?1)
    first.update((index, f"?{place}") for place, index in enumerate(own, len(shared) + 1))
    head = f"({', '.join(first[index] for index in kept)})"
    row = f"({', '.join(number.get(index, '?') for index in kept)})"
    names = ", ".join(COLUMNS[index] for index in kept)
    values = ", ".join([head, *[row] * (count - 1)])
    return f"INSERT OR REPLACE INTO calls ({names}) VALUES " + values, _picker(shared), _picker(own)


def _picker(indexes: tuple[int, ...]) -> Picker:
    """What gives a row's values at ``indexes`` as a tuple (``itemgetter`` of one index gives the value)."""
    if len(indexes) == 1:
        index = indexes[0]
        return lambda row: (row[index],)
    if not indexes:
        return lambda row: ()
    return operator.itemgetter(*indexes)


def _statement(rows: list[CallRow]) -> tuple[str, list[Any]]:
    """``(statement, values)`` inserting ``rows``: a column that is None in every row is left out
    (it is NULL all the same), and a column that holds one value in every row is bound once.
    Python's ``sqlite3`` binds a value for ~0.7k (a number) to ~1.3k (a text) instructions and a
    None through its adapter lookup for ~3.8k (bench/provenance.md); a batch's rows share their
    write time and expiry, and mostly their tool, facts, protocol version, executor and status (and
    under one client its owner, session and thread)."""
    count = len(rows)
    kept: list[int] = []
    shared: list[int] = []
    for index, column in enumerate(zip(*rows, strict=True)):
        first = column[0]
        # one value (by ==: a column's values are of one type); a column whose last value differs (the id, the
        # times, the texts of each call) is not counted through (~0.3k instructions a row, bench/provenance.md)
        if count > 1 and column[-1] == first and column.count(first) == count:
            if first is not None:
                kept.append(index)
                shared.append(index)
        elif first is not None or column.count(None) != count:
            kept.append(index)
    statement, pick_shared, pick_own = _insert(tuple(kept), tuple(shared), count)
    return statement, [*pick_shared(rows[0]), *chain.from_iterable(map(pick_own, rows))]


_MIGRATE = (
    "INSERT OR IGNORE INTO calls (id, owner, tool, created, expires, body) "
    f"SELECT id, owner, tool, created, expires, body FROM {FIRST_SCHEMA_TABLE} ORDER BY created"
)


_OLD_OWNERS = (
    "SELECT 1 FROM calls WHERE substr(owner, 1, 8) = 'session:' AND length(owner) <> 72 UNION ALL "
    "SELECT 1 FROM ended_sessions WHERE length(session) <> 64 LIMIT 1"
)
_REKEY_OWNERS = (
    "UPDATE calls SET owner = 'session:' || session_key(substr(owner, 9)) "
    "WHERE substr(owner, 1, 8) = 'session:' AND length(owner) <> 72",
    "UPDATE OR REPLACE ended_sessions SET session = session_key(session) WHERE length(session) <> 64",
)
"""A record (and an ended session) of an earlier version names its session by its id: by its key
(``session:`` and 64 hex digits) from now on."""


class SQLiteRecords:
    """Records in ``<directory>/provenance.sqlite3`` (one transaction per batch of rows)."""

    def __init__(self, directory: str) -> None:
        self.path, self._db, _ = open_database(directory, DB_FILE, SCHEMA)
        close_when_collected(self, self._db)  # (not at exit: the writer's last drain may still need it)
        self._lock = threading.Lock()
        self._data_version: int | None = None  # (of :meth:`changed`)
        self._facts: dict[str, dict[str, Any] | None] = {}
        if self._has_first_schema():
            self._migrate()
        with self._lock:
            rekeyed = rekey_sessions(self._db, _OLD_OWNERS, _REKEY_OWNERS)
        if rekeyed:
            log.info("replaced the session ids of %d provenance row(s) of an earlier version by their keys", rekeyed)

    def _has_first_schema(self) -> bool:
        found = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (FIRST_SCHEMA_TABLE,)
        ).fetchone()
        return found is not None

    def _migrate(self) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if self._has_first_schema():  # another process may have migrated it meanwhile
                    moved = self._db.execute(_MIGRATE).rowcount
                    self._db.execute(f"DROP TABLE {FIRST_SCHEMA_TABLE}")
                    log.info("moved %d provenance record(s) of the first schema into %s", moved, self.path)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def put_many(self, rows: list[CallRow], facts: dict[str, str], max_records: int) -> None:
        """Write ``rows`` (replacing a row of the same id) and the ``facts`` they refer to that
        may not be stored yet, in one transaction (``max_records`` is kept by :meth:`purge`)."""
        with self._lock:
            if not facts and len(rows) <= ROWS_PER_STATEMENT:
                self._db.execute(*_statement(rows))  # one statement is a transaction of its own
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if facts:
                    self._db.executemany("INSERT OR IGNORE INTO facts VALUES (?, ?)", facts.items())
                for start in range(0, len(rows), ROWS_PER_STATEMENT):
                    self._db.execute(*_statement(rows[start : start + ROWS_PER_STATEMENT]))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def get_row(self, record_id: str) -> CallRow | None:
        with self._lock:
            found = self._db.execute(f"{_SELECT} WHERE id = ?", (record_id,)).fetchone()
        return None if found is None else CallRow(*found)

    def written(self, record_ids: Collection[str]) -> set[str]:
        """Which of ``record_ids`` have a row, expired or not (:data:`IDS_PER_LOOK` ids a statement)."""
        ids = list(record_ids)
        found: set[str] = set()
        for start in range(0, len(ids), IDS_PER_LOOK):
            part = ids[start : start + IDS_PER_LOOK]
            query = f"SELECT id FROM calls WHERE id IN ({','.join('?' * len(part))})"
            with self._lock:  # (a statement at a time: the writer's batch is not held up by a long look)
                found.update(row[0] for row in self._db.execute(query, part).fetchall())
        return found

    def changed(self) -> bool:
        """Whether another connection (another process, another server of this one) wrote to the file
        since the last call (SQLite's ``PRAGMA data_version``); True at the first call."""
        with self._lock:
            version = self._db.execute("PRAGMA data_version").fetchone()[0]
        changed, self._data_version = version != self._data_version, version
        return bool(changed)

    def get(self, record_id: str) -> tuple[str | None, float, dict[str, Any]] | None:
        row = self.get_row(record_id)
        return None if row is None else (row.owner, row.expires, view(row, self._facts_of(row.facts)))

    def of_owner(self, owner: str | None, limit: int, now: float) -> list[dict[str, Any]]:
        query = f"{_SELECT} WHERE owner IS ? AND expires >= ? ORDER BY seq DESC LIMIT ?"
        return self._views(query, (owner, now, limit))

    def recent(self, limit: int, now: float) -> list[dict[str, Any]]:
        return self._views(f"{_SELECT} WHERE expires >= ? ORDER BY seq DESC LIMIT ?", (now, limit))

    def _views(self, query: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        with self._lock:
            rows = [CallRow(*found) for found in self._db.execute(query, params).fetchall()]
        return [view(row, self._facts_of(row.facts)) for row in rows]

    def _facts_of(self, key: str | None) -> dict[str, Any] | None:
        if key is None:
            return None
        if key in self._facts:
            return self._facts[key]
        with self._lock:
            found = self._db.execute("SELECT body FROM facts WHERE key = ?", (key,)).fetchone()
        facts = parse_facts(found[0]) if found is not None else None
        if facts is not None:  # a missing key may be written later (by another process)
            if len(self._facts) >= MAX_FACTS_CACHED:
                self._facts.clear()
            self._facts[key] = facts
        return facts

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

    def purge(self, now: float, max_records: int, *, sweep: bool = False) -> int:
        """Delete expired rows and the oldest beyond ``max_records``; returns how many went.

        Rows are written in the order of ``seq`` and expire in that order (one TTL per server), so
        the expired rows are the oldest: they are deleted up to the first row that has not expired
        (found by reading the rows from the oldest on), and the rows beyond ``max_records`` are
        those whose ``seq`` is at least ``max_records`` below the newest. A purge reads what it
        deletes and a few pages, not the table: a scan of 100,000 rows (and the ``count(*)`` of
        the bound) cost ~60 M instructions every 10 s (bench/provenance.md, fifth pass). A ``seq``
        freed by a replaced row (a job's record completed) counts as a row, so the store may keep
        fewer than ``max_records``, never more. With ``sweep``, expired rows are deleted wherever
        they are (rows of a server with a longer TTL may sit before them) and the rows counted."""
        db = self._db
        with self._lock:
            if sweep:
                gone = int(db.execute("DELETE FROM calls WHERE expires < ?", (now,)).rowcount)
                over = db.execute("SELECT count(*) FROM calls").fetchone()[0] - max_records
                if over > 0:
                    gone += int(
                        db.execute(
                            "DELETE FROM calls WHERE seq IN (SELECT seq FROM calls ORDER BY seq LIMIT ?)", (over,)
                        ).rowcount
                    )
                return gone
            first = db.execute("SELECT seq FROM calls WHERE expires >= ? ORDER BY seq LIMIT 1", (now,)).fetchone()
            if first is None:  # every row has expired
                return int(db.execute("DELETE FROM calls WHERE expires < ?", (now,)).rowcount)
            gone = int(db.execute("DELETE FROM calls WHERE seq < ?", first).rowcount)
            newest = db.execute("SELECT max(seq) FROM calls").fetchone()[0]
            gone += int(db.execute("DELETE FROM calls WHERE seq <= ?", (newest - max_records,)).rowcount)
            return gone

    def trim_owner(self, owner: str | None, keep: int) -> int:
        """Delete the rows of ``owner`` (an owner key; None: the records of no owner) but its newest
        ``keep``; returns how many went. One statement over the ``(owner, seq)`` index: it walks
        at most ``keep`` index entries of the owner's and deletes what lies past them."""
        with self._lock:
            return int(self._db.execute(
                "DELETE FROM calls WHERE owner IS ?1 AND seq <= "
                "(SELECT seq FROM calls WHERE owner IS ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)",
                (owner, keep)).rowcount)

    def end_session(self, session_id: str, expires: float, max_records: int) -> None:
        """Note that the session ``session_id`` ended (kept until ``expires``; at most
        ``max_records`` sessions, the oldest forgotten first)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT OR REPLACE INTO ended_sessions VALUES (?, ?)", (session_id, expires))
                self._db.execute(
                    "DELETE FROM ended_sessions WHERE rowid <= (SELECT max(rowid) FROM ended_sessions) - ?",
                    (max_records,),
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def session_ended(self, session_id: str) -> bool:
        with self._lock:
            found = self._db.execute("SELECT 1 FROM ended_sessions WHERE session = ?", (session_id,)).fetchone()
        return found is not None

    def purge_facts(self) -> int:
        """Delete the facts no row refers to (and the ended sessions whose records expired);
        returns how many facts went."""
        with self._lock:
            self._db.execute("DELETE FROM ended_sessions WHERE expires < ?", (time.time(),))
            return int(
                self._db.execute(
                    "DELETE FROM facts WHERE key NOT IN (SELECT facts FROM calls WHERE facts IS NOT NULL)"
                ).rowcount
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()


def read_recent(
    directory: str, limit: int, *, tool: str | None = None, caller: str | None = None, record_id: str | None = None,
    now: float | None = None,
) -> list[dict[str, Any]]:
    """The newest ``limit`` unexpired records in ``directory``'s :data:`DB_FILE` (of the tool named
    ``tool`` only, of ``caller`` only, when given: see :func:`caller_owner`, and the record ``record_id`` only:
    ``provenance show``), newest first, read without
    writing anything: the file is opened read-only (no schema made, no migration), so a running server's
    writes go on.

    Raises:
        FileNotFoundError: ``directory`` has no :data:`DB_FILE`.
        sqlite3.Error: the file cannot be read, or is of the first schema (a server of this
            version moves its records when it opens it).
    """
    path = os.path.join(directory, DB_FILE)
    if not os.path.isfile(path):
        raise FileNotFoundError(path)
    db = sqlite3.connect(Path(os.path.abspath(path)).as_uri() + "?mode=ro", uri=True, timeout=10.0)
    try:
        where = "expires >= ?"
        params: list[Any] = [time.time() if now is None else now]
        if tool is not None:  # (no index of tools: the rows are walked newest first until enough are found)
            where += " AND tool = ?"
            params.append(tool)
        if caller is not None:  # (the owners' index)
            condition, values = caller_owner(caller)
            where += f" AND {condition}"
            params.extend(values)
        if record_id is not None:  # (the ids' index)
            where += " AND id = ?"
            params.append(record_id)
        found = db.execute(f"{_SELECT} WHERE {where} ORDER BY seq DESC LIMIT ?", (*params, limit)).fetchall()
        rows = [CallRow(*values) for values in found]
        facts: dict[str, dict[str, Any] | None] = {}
        for key in {row.facts for row in rows if row.facts is not None}:
            body = db.execute("SELECT body FROM facts WHERE key = ?", (key,)).fetchone()
            facts[key] = parse_facts(body[0]) if body is not None else None
    finally:
        db.close()
    return [view(row, facts.get(row.facts) if row.facts is not None else None) for row in rows]


def caller_owner(caller: str) -> tuple[str, tuple[str, ...]]:
    """The condition on the ``owner`` column (and its values) selecting the records of ``caller``, as
    :func:`.listing.caller_of` names one: a principal's subject (``alice``: owner ``principal:alice``), a
    session by its digest (``session:`` and the first hex digits of its key, the record's ``session``), or
    ``-`` (no caller: a record made with neither). ``session:`` and the digits are read in any case."""
    if caller == "-":
        return "owner IS NULL", ()
    if caller[:len(SESSION_OWNER)].lower() == SESSION_OWNER:  # a prefix of the session's key: a range of the index
        start = SESSION_OWNER + caller[len(SESSION_OWNER):].lower()
        return "owner >= ? AND owner < ?", (start, start + "\uffff")
    return "owner = ?", (PRINCIPAL_OWNER + caller,)
