"""Where cached tool results live: memory, or ``cache.sqlite3`` beside the job store.

An entry is a key (SHA-256 hex of the tool's code hash, its canonical arguments and, unless the
tool shares its results, the caller), the tool's name and code hash, the stored
``CallToolResult`` (JSON), its size in bytes (the JSON's UTF-8 bytes, its owner key's twice and
:data:`ENTRY_OVERHEAD`),
when it was stored, when it expires, when it was last used, and its owner: the caller whose call
stored it (the principal, else the session, else None:
:func:`~nanohubmcp.server.results.owners.owner_of`), for a ``cache="shared"`` tool's entry too (the
caller whose run produced it). An entry is read against its tool's ``cache_ttl`` as it is now: it
expires at the earlier of its stored expiry and its store time plus that ttl (a ttl lowered, e.g.
at a restart, applies to the entries stored under the longer one; an entry of an earlier version,
with no store time, is expired for a tool with a ttl).

The store holds at most ``max_bytes_per_owner`` of one owner's entries (an eighth of ``max_bytes``
by default; its least recently used go first, so one caller's results never push another's out)
and ``max_bytes`` in all (the least recently used of any owner go first: the last resort); a
result larger than a quarter of ``max_bytes``, or than an owner's share, is never stored. A file
of an earlier version gains the ``owner`` column when it is opened (its entries are of no owner:
they count against the share of the callers without principal or session). Expired entries read
as missing and are purged on writes. With SQLite, entries outlive the server process (a restarted
server answers from them). In front of the store, each process keeps its recent hits
(:mod:`.cache_front`, emptied with the store's entries of a tool); the store stays the truth.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Protocol

from ...protocol import jsonenc
from ..jobs.sqlite_file import close_when_collected, open_database
from .cache_front import MAX_BYTES as MAX_FRONT_BYTES
from .cache_front import FrontCache
from .tool_options import DEFAULT_CACHE_BYTES

if TYPE_CHECKING:
    from collections.abc import Callable

log = logging.getLogger("nanohubmcp.cache")

DB_FILE = "cache.sqlite3"
ENTRY_OVERHEAD = 384
"""Bytes counted per entry beside its result's JSON and its owner key (counted twice: the row and the owners'
index): its key, code hash, tool and times, and its rows in the store's indexes (3,000 small results of a
session's took ~576 bytes an entry of ``cache.sqlite3``, counted ~587; before, ~380 with ~60 counted)."""
SHARE_OF_WHOLE = 8
"""An owner's share of the cache by default: ``max_bytes`` over this."""
USE_RESOLUTION_SECONDS = 1.0
"""An entry's last use is written at most this often (least-recently-used order to the second)."""
SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY, tool TEXT NOT NULL, code TEXT NOT NULL, result TEXT NOT NULL, size INTEGER NOT NULL,
    expires REAL NOT NULL, used REAL NOT NULL, stored REAL NOT NULL DEFAULT 0, owner TEXT);
CREATE INDEX IF NOT EXISTS entries_by_use ON entries(used);
CREATE INDEX IF NOT EXISTS entries_by_tool ON entries(tool);
"""
OWNER_COLUMN = "ALTER TABLE entries ADD COLUMN owner TEXT"
"""The owner of a file of an earlier version's entries (None: of no owner)."""
OWNER_INDEX = "CREATE INDEX IF NOT EXISTS entries_by_owner ON entries(owner, used, size)"
"""An owner's entries, least recently used first, with their sizes (made once the column is there): the order
an owner past its share loses its entries in."""


TOTALS = """
CREATE INDEX IF NOT EXISTS entries_by_expiry ON entries(expires);
CREATE TABLE IF NOT EXISTS totals (owner TEXT PRIMARY KEY, bytes INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS entries_added AFTER INSERT ON entries BEGIN
    INSERT OR IGNORE INTO totals VALUES ('*', 0), (coalesce('=' || new.owner, '-'), 0);
    UPDATE totals SET bytes = bytes + new.size WHERE owner IN ('*', coalesce('=' || new.owner, '-'));
END;
CREATE TRIGGER IF NOT EXISTS entries_removed AFTER DELETE ON entries BEGIN
    UPDATE totals SET bytes = bytes - old.size WHERE owner IN ('*', coalesce('=' || old.owner, '-'));
END;
CREATE TRIGGER IF NOT EXISTS entries_resized AFTER UPDATE OF size, owner ON entries BEGIN
    UPDATE totals SET bytes = bytes - old.size WHERE owner IN ('*', coalesce('=' || old.owner, '-'));
    INSERT OR IGNORE INTO totals VALUES (coalesce('=' || new.owner, '-'), 0);
    UPDATE totals SET bytes = bytes + new.size WHERE owner IN ('*', coalesce('=' || new.owner, '-'));
END;
"""
"""The entries' bytes in all (``'*'``) and per owner (``'=' || owner``; ``'-'`` for no owner), kept by triggers
in the file itself (every process writing it keeps them), so a put reads two rows instead of summing every
entry's size (~1 ms at 3,000 entries, ~34 ms at 20,000 on a busy host, growing with the cache); expired entries
found by their index. Counted again from the entries when a process opens the file (a file of an earlier
version, a process of one that replaced rows without the delete trigger)."""
RECOUNT = (
    "DELETE FROM totals",
    "INSERT INTO totals SELECT '*', coalesce(sum(size), 0) FROM entries",
    "INSERT INTO totals SELECT coalesce('=' || owner, '-'), sum(size) FROM entries GROUP BY owner",
)


STORED_COLUMN = "ALTER TABLE entries ADD COLUMN stored REAL NOT NULL DEFAULT 0"
"""The store time of a file of an earlier version (its entries read as stored at 0: expired for a tool with a ttl)."""


def expiry(expires: float, stored: float, ttl: float | None) -> float:
    """When an entry stored at ``stored`` (expiring at ``expires`` by the ttl it was stored under)
    expires for its tool's ``ttl`` now (seconds; None: no ttl): the earlier of the two."""
    return expires if ttl is None else min(expires, stored + ttl)


def encode(result: dict[str, Any]) -> str:
    """A result as the cache keeps it: its wire JSON (an array's or table's data kept as JSON text
    written as it is), valid UTF-8 (a lone surrogate escaped)."""
    return jsonenc.dumpb(result).decode()


class CacheBackend(Protocol):
    """Where entries live; ``read`` answers an entry's JSON text and expiry for its tool's ``ttl``
    now (:func:`expiry`; its last use refreshed), None when missing or expired (an expired one is dropped)."""

    def read(self, key: str, now: float, ttl: float | None = None) -> tuple[str, float] | None: ...

    def put(self, key: str, tool: str, code: str, text: str, size: int, expires: float, max_bytes: int,
            stored: float, owner: str | None = None, share: int | None = None) -> None:
        """Store the result's JSON ``text`` (``size`` bytes) of ``owner`` at time ``stored``; then drop
        ``owner``'s least recently used past ``share`` bytes (None: no share), and any owner's past ``max_bytes``."""

    def drop_tool(self, tool: str | None, keep_code: str | None) -> int: ...

    def total(self) -> tuple[int, int]: ...

    def close(self) -> None: ...


class MemoryCache:
    """Entries in an ordered dict, least recently used first (each result as its JSON text: a hit
    parses its own copy)."""

    def __init__(self) -> None:
        self._rows: OrderedDict[str, tuple[str, str, str, int, float, float, str | None]] = OrderedDict()
        self._owned: dict[str | None, OrderedDict[str, None]] = {}
        """Each owner's keys, least recently used first (an owner with none has no entry)."""
        self._owned_bytes: dict[str | None, int] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def _drop(self, key: str) -> None:
        """Forget the entry of ``key`` (the lock held)."""
        row = self._rows.pop(key)
        self._bytes -= row[3]
        owner = row[6]
        owned = self._owned[owner]
        del owned[key]
        if owned:
            self._owned_bytes[owner] -= row[3]
        else:
            del self._owned[owner], self._owned_bytes[owner]

    def read(self, key: str, now: float, ttl: float | None = None) -> tuple[str, float] | None:
        with self._lock:
            row = self._rows.get(key)
            if row is None:
                return None
            expires = expiry(row[4], row[5], ttl)
            if expires < now:
                self._drop(key)
                return None
            self._rows.move_to_end(key)
            self._owned[row[6]].move_to_end(key)
        return row[2], expires

    def put(self, key: str, tool: str, code: str, text: str, size: int, expires: float, max_bytes: int,
            stored: float, owner: str | None = None, share: int | None = None) -> None:
        with self._lock:
            if key in self._rows:
                self._drop(key)
            self._rows[key] = (tool, code, text, size, expires, stored, owner)
            self._owned.setdefault(owner, OrderedDict())[key] = None
            self._owned_bytes[owner] = self._owned_bytes.get(owner, 0) + size
            self._bytes += size
            while share is not None and self._owned_bytes.get(owner, 0) > share:
                self._drop(next(iter(self._owned[owner])))
            while self._bytes > max_bytes and self._rows:
                self._drop(next(iter(self._rows)))

    def drop_tool(self, tool: str | None, keep_code: str | None) -> int:
        with self._lock:
            gone = [k for k, row in self._rows.items() if tool is None or (row[0] == tool and row[1] != keep_code)]
            for key in gone:
                self._drop(key)
        return len(gone)

    def total(self) -> tuple[int, int]:
        with self._lock:
            return len(self._rows), self._bytes

    def close(self) -> None:
        pass


class SQLiteCache:
    """Entries in ``<state_dir>/cache.sqlite3`` (WAL); shared by the server processes using the directory."""

    def __init__(self, directory: str) -> None:
        self.path, self._db, _ = open_database(directory, DB_FILE, SCHEMA)
        close_when_collected(self, self._db)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(entries)")}
        for name, added in (("stored", STORED_COLUMN), ("owner", OWNER_COLUMN)):
            if name not in columns:
                try:
                    self._db.execute(added)
                except sqlite3.OperationalError as exc:  # another process added it first
                    if "duplicate column" not in str(exc):
                        raise
        self._db.execute(OWNER_INDEX)
        self._db.executescript(TOTALS)
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for statement in RECOUNT:
                self._db.execute(statement)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        self._lock = threading.Lock()

    def read(self, key: str, now: float, ttl: float | None = None) -> tuple[str, float] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT result, expires, used, stored FROM entries WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            expires = expiry(row[1], row[3], ttl)
            if expires < now:
                self._db.execute("DELETE FROM entries WHERE key = ?", (key,))
                return None
            if now - row[2] > USE_RESOLUTION_SECONDS:  # a write per hit would cost more than the hit
                self._db.execute("UPDATE entries SET used = ? WHERE key = ?", (now, key))
        return row[0], expires

    def put(self, key: str, tool: str, code: str, text: str, size: int, expires: float, max_bytes: int,
            stored: float, owner: str | None = None, share: int | None = None) -> None:
        now = stored
        db = self._db
        with self._lock:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM entries WHERE expires < ?", (now,))
                db.execute("DELETE FROM entries WHERE key = ?", (key,))  # (a REPLACE's would fire no trigger)
                db.execute(
                    "INSERT INTO entries (key, tool, code, result, size, expires, used, stored, owner) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (key, tool, code, text, size, expires, now, stored, owner),
                )
                total = db.execute("SELECT bytes FROM totals WHERE owner = '*'").fetchone()[0]
                mine = 0 if share is None else db.execute(
                    "SELECT bytes FROM totals WHERE owner = coalesce('=' || ?, '-')", (owner,)).fetchone()[0]
                total -= self._evict(total, 0 if share is None else mine - share,
                                     "WHERE owner IS ? ORDER BY used", (owner,))
                self._evict(total, total - max_bytes, "ORDER BY used", ())
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _evict(self, total: int, over: int, order: str, params: tuple[Any, ...]) -> int:
        """Delete the first entries in ``order`` until ``over`` bytes went (the lock and a transaction held);
        how many bytes went."""
        gone = 0
        while gone < over:
            oldest = self._db.execute(f"SELECT key, size FROM entries {order} LIMIT 1", params).fetchone()
            if oldest is None:
                break
            self._db.execute("DELETE FROM entries WHERE key = ?", (oldest[0],))
            gone += oldest[1]
        return gone

    def drop_tool(self, tool: str | None, keep_code: str | None) -> int:
        with self._lock:
            if tool is None:
                return self._db.execute("DELETE FROM entries").rowcount
            return self._db.execute("DELETE FROM entries WHERE tool = ? AND code IS NOT ?", (tool, keep_code)).rowcount

    def total(self) -> tuple[int, int]:
        with self._lock:
            count = self._db.execute("SELECT count(*) FROM entries").fetchone()[0]
            row = self._db.execute("SELECT bytes FROM totals WHERE owner = '*'").fetchone()
        return int(count), int(row[0]) if row else 0

    def close(self) -> None:
        with self._lock:
            self._db.close()


class ResultCache:
    """The server's result cache (opened on first use).

    Args:
        directory: a callable giving the state directory for a persistent cache, else None.
        max_bytes: the most bytes of results kept (least recently used dropped first).
        max_bytes_per_owner: the most bytes of one owner's results kept (its least recently used dropped
            first); None: ``max_bytes`` over :data:`SHARE_OF_WHOLE`.

    .. versionchanged:: 1.0
       ``max_bytes_per_owner``: one caller's results no longer push every other caller's out; an entry's
       size counts :data:`ENTRY_OVERHEAD`.
    """

    def __init__(self, directory: Callable[[], str | None], max_bytes: int = DEFAULT_CACHE_BYTES,
                 max_bytes_per_owner: int | None = None) -> None:
        self.max_bytes = max_bytes
        self.max_bytes_per_owner = max(1, max_bytes // SHARE_OF_WHOLE if max_bytes_per_owner is None
                                       else max_bytes_per_owner)
        self._directory = directory
        self._backend: CacheBackend | None = None
        self._lock = threading.Lock()
        self.front = FrontCache(self.read, max_bytes=min(MAX_FRONT_BYTES, max(max_bytes // 4, 1)))
        """This process's front of recent hits (:mod:`.cache_front`), emptied with the store's entries."""
        self._clears: dict[str | None, int] = {}
        """How many times :meth:`invalidate` ran in this process, per tool name (None: every tool's)."""

    @property
    def backend(self) -> CacheBackend:
        if self._backend is None:
            with self._lock:
                if self._backend is None:
                    directory = self._directory()
                    backend: CacheBackend = MemoryCache()
                    if directory is not None:
                        try:
                            backend = SQLiteCache(directory)
                        except (OSError, sqlite3.Error) as exc:
                            log.warning("cannot keep cached results in %s (%s): kept in memory", directory, exc)
                    self._backend = backend
        return self._backend

    def get(self, key: str, ttl: float | None = None) -> dict[str, Any] | None:
        """The stored result of ``key`` (its use time refreshed), or None (missing, or expired for
        its tool's ``ttl`` in seconds now: :func:`expiry`)."""
        found = self.read(key, ttl)
        return json.loads(found[0]) if found is not None else None

    def read(self, key: str, ttl: float | None = None) -> tuple[str, float] | None:
        """``(JSON text, expires)`` of ``key`` (its use time refreshed), or None; ``ttl``: its tool's
        ``cache_ttl`` now (seconds; None: none), which an entry stored under a longer one is judged by."""
        try:
            return self.backend.read(key, time.time(), ttl)
        except sqlite3.Error as exc:
            log.warning("could not read the result cache: %s", exc)
            return None

    def put(self, key: str, tool: str, code: str, result: dict[str, Any] | str, ttl: float | None,
            owner: str | None = None) -> bool:
        """Store ``result`` (or its JSON text, from :func:`encode`) of ``owner`` (an owner key: the caller
        whose call made it; None: of no owner); False when it is too large to keep (with
        :data:`ENTRY_OVERHEAD`, over a quarter of ``max_bytes`` or over ``max_bytes_per_owner``)."""
        text = result if isinstance(result, str) else encode(result)
        size = len(text.encode()) + ENTRY_OVERHEAD + 2 * len(owner or "")
        if size > self.max_bytes // 4 or size > self.max_bytes_per_owner:
            return False
        now = time.time()
        expires = now + ttl if ttl is not None else float("inf")
        try:
            self.backend.put(key, tool, code, text, size, min(expires, 1e18), self.max_bytes, now, owner,
                             self.max_bytes_per_owner)
        except sqlite3.Error as exc:
            log.warning("could not store a result in the cache: %s", exc)
            return False
        return True

    def invalidate(self, tool: str | None, keep_code: str | None = None) -> int:
        """Drop the entries of ``tool`` made by code other than ``keep_code`` (all with None);
        with ``tool`` None, every entry. Returns how many were dropped. This process's front
        forgets all of the tool's entries (every entry with None; the store still answers the
        kept ones)."""
        self._clears[tool] = self._clears.get(tool, 0) + 1
        self.front.drop_tool(tool)
        try:
            return self.backend.drop_tool(tool, keep_code)
        except sqlite3.Error as exc:
            log.warning("could not drop cached results of %s: %s", tool, exc)
            return 0

    def clears(self, tool: str) -> tuple[int, int]:
        """How many times ``tool``'s entries and every tool's were dropped (:meth:`invalidate`) in this
        process: a call of ``tool`` during which this changed keeps nothing (its result may be of what the
        user cleared the entries for); a clear of another tool's entries leaves it be."""
        return self._clears.get(tool, 0), self._clears.get(None, 0)

    def stats(self) -> dict[str, int]:
        """``{entries, bytes, max_bytes, max_bytes_per_owner}``."""
        entries, size = self.backend.total()
        return {"entries": entries, "bytes": size, "max_bytes": self.max_bytes,
                "max_bytes_per_owner": self.max_bytes_per_owner}

    def close(self) -> None:
        self.front.clear()
        if self._backend is not None:
            self._backend.close()
            self._backend = None
