"""Provenance records kept in this process's memory (a server without a state directory): rows in
an ordered dict, oldest first, the facts they share parsed once, bounded as the SQLite store is
(:mod:`.record_db`); each owner's record ids in an ordered dict of their own (its share:
:meth:`MemoryRecords.trim_owner`)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .record_db import MAX_SOURCES
from .rows import CallRow, parse_facts, view

__all__ = ["MemoryRecords"]


class MemoryRecords:
    """Records in an ordered dict (oldest first).

    Args:
        per_owner: the records one owner keeps at most (its oldest dropped first, as each batch is put, before
            the bound of records in all: a batch of one owner's records never drops another's); None: no share.
    """

    def __init__(self, per_owner: int | None = None) -> None:
        self.per_owner = per_owner
        self._rows: OrderedDict[str, CallRow] = OrderedDict()
        self._owned: dict[str | None, OrderedDict[str, None]] = {}
        """Each owner's record ids, oldest first (an owner with none has no entry)."""
        self._facts: dict[str, dict[str, Any] | None] = {}
        self._sources: OrderedDict[str, str] = OrderedDict()
        self._ended: OrderedDict[str, float] = OrderedDict()  # session key -> when its records expire
        self._lock = threading.Lock()

    def put_many(self, rows: list[CallRow], facts: dict[str, str], max_records: int) -> None:
        with self._lock:
            for key, text in facts.items():
                if key not in self._facts:
                    self._facts[key] = parse_facts(text)
            for row in rows:
                old = self._rows.get(row.id)
                if old is not None and old.owner != row.owner:
                    self._disown(old)
                self._rows[row.id] = row
                self._rows.move_to_end(row.id)
                owned = self._owned.setdefault(row.owner, OrderedDict())
                owned[row.id] = None
                owned.move_to_end(row.id)
                if self.per_owner is not None:
                    while len(owned) > self.per_owner:
                        self._rows.pop(owned.popitem(last=False)[0], None)
            while len(self._rows) > max_records:
                self._disown(self._rows.popitem(last=False)[1])

    def _disown(self, row: CallRow) -> None:
        """Forget ``row`` (gone from the rows) in its owner's ids (the lock held)."""
        owned = self._owned.get(row.owner)
        if owned is not None:
            owned.pop(row.id, None)
            if not owned:
                del self._owned[row.owner]

    def trim_owner(self, owner: str | None, keep: int) -> int:
        """Drop the records of ``owner`` but its newest ``keep``; how many went."""
        with self._lock:
            owned = self._owned.get(owner)
            gone = 0
            while owned and len(owned) > keep:
                self._rows.pop(owned.popitem(last=False)[0], None)
                gone += 1
            if owned is not None and not owned:
                del self._owned[owner]
        return gone

    def get_row(self, record_id: str) -> CallRow | None:
        with self._lock:
            return self._rows.get(record_id)

    def get(self, record_id: str) -> tuple[str | None, float, dict[str, Any]] | None:
        row = self.get_row(record_id)
        return None if row is None else (row.owner, row.expires, view(row, self._facts.get(row.facts or "")))

    def of_owner(self, owner: str | None, limit: int, now: float) -> list[dict[str, Any]]:
        return self._views(limit, now, lambda row: row.owner == owner)

    def recent(self, limit: int, now: float) -> list[dict[str, Any]]:
        return self._views(limit, now, lambda row: True)

    def _views(self, limit: int, now: float, wanted: Callable[[CallRow], bool]) -> list[dict[str, Any]]:
        with self._lock:
            rows: list[CallRow] = []
            for row in reversed(self._rows.values()):
                if len(rows) >= limit:
                    break
                if row.expires >= now and wanted(row):
                    rows.append(row)
        return [view(row, self._facts.get(row.facts or "")) for row in rows]

    def put_source(self, digest: str, source: str) -> None:
        with self._lock:
            self._sources[digest] = source
            self._sources.move_to_end(digest)
            while len(self._sources) > MAX_SOURCES:
                self._sources.popitem(last=False)

    def get_source(self, digest: str) -> str | None:
        with self._lock:
            return self._sources.get(digest)

    def purge(self, now: float, max_records: int, *, sweep: bool = False) -> int:
        with self._lock:
            gone = [key for key, row in self._rows.items() if row.expires < now]
            for key in gone:
                self._disown(self._rows.pop(key))
        return len(gone)

    def end_session(self, key: str, expires: float, max_records: int) -> None:
        with self._lock:
            self._ended[key] = expires
            self._ended.move_to_end(key)
            while len(self._ended) > max_records:
                self._ended.popitem(last=False)

    def session_ended(self, key: str) -> bool:
        with self._lock:
            return key in self._ended

    def purge_facts(self) -> int:
        with self._lock:
            now = time.time()
            for session_id in [key for key, expires in self._ended.items() if expires < now]:
                del self._ended[session_id]
            used = {row.facts for row in self._rows.values()}
            gone = [key for key in self._facts if key not in used]
            for key in gone:
                del self._facts[key]
        return len(gone)

    def close(self) -> None:
        pass
