"""Reads waiting for a record another process may still be writing (a shared store:
:meth:`.records.ProvenanceStore.get_written_elsewhere`).

One thread per store looks for every awaited record at once: one query (a few ids per statement) every
:data:`LOOK_EVERY_SECONDS`, and only when the records' file changed (another connection committed) or a
read began to wait since its last look. The event loop only waits on a future. At most
:data:`MAX_WAITING` reads wait at once, and :data:`MAX_WAITING_EACH` of one caller (a principal, a
session, or all callers without either together): a read past either is answered "not found" at once, as
it would be after the wait, with a warning in the log at most every :data:`WARN_EVERY_SECONDS`.

It owns no records and no connection: a :class:`Lookup` (the SQLite records) answers its questions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["LOOK_EVERY_SECONDS", "MAX_WAITING", "MAX_WAITING_EACH", "AwaitedRecords", "Lookup"]

log = logging.getLogger("nanohubmcp.provenance")

LOOK_EVERY_SECONDS = 0.05
"""How often the awaited records are looked for (when the file changed)."""
MAX_WAITING = 1000
"""Reads waiting at once in a process (of one store), at most."""
MAX_WAITING_EACH = 32
"""Reads of one caller (owner key, or all callers without one together) waiting at once, at most."""
WARN_EVERY_SECONDS = 60.0


class Lookup(Protocol):
    """What the watcher asks of the records (from its own thread)."""

    def written(self, record_ids: Collection[str]) -> set[str]:
        """Which of ``record_ids`` are stored (expired or not)."""

    def changed(self) -> bool:
        """Whether another connection wrote to the records since the last call (True at the first)."""


@dataclass(eq=False)
class _Read:
    record_id: str
    owner: str | None
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None] = field(init=False)

    def __post_init__(self) -> None:
        self.future = self.loop.create_future()

    def found(self) -> None:
        """On the thread: wake the read on its loop (gone with its loop: nothing to wake)."""
        with contextlib.suppress(RuntimeError):  # (the loop was closed meanwhile)
            self.loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        if not self.future.done():
            self.future.set_result(None)


class AwaitedRecords:
    """The reads waiting for records of ``lookup`` (see the module's docstring).

    Args:
        lookup: the records, asked from the watching thread.
        every: seconds between two looks.
        most: reads waiting at once, at most; ``most_each``: of one owner.
    """

    def __init__(self, lookup: Lookup, *, every: float = LOOK_EVERY_SECONDS, most: int = MAX_WAITING,
                 most_each: int = MAX_WAITING_EACH) -> None:
        self._lookup = lookup
        self._every = every
        self._most = most
        self._most_each = most_each
        self._lock = threading.Lock()
        self._reads: set[_Read] = set()
        self._each: Counter[str | None] = Counter()
        self._fresh = False  # a read began to wait since the last look
        self._thread: threading.Thread | None = None
        self._warned = 0.0
        self.refused = 0
        """Reads answered at once because too many waited (counted, for the log and the tests)."""

    async def written(self, record_id: str, owner: str | None, within: float) -> bool:
        """Whether the record ``record_id`` is stored within ``within`` seconds; False at once when
        :data:`MAX_WAITING` reads (or :data:`MAX_WAITING_EACH` of ``owner``) wait already."""
        read = _Read(record_id, owner, asyncio.get_running_loop())
        if not self._add(read):
            return False
        try:
            await asyncio.wait_for(read.future, within)
        except asyncio.TimeoutError:  # (not the builtin TimeoutError before Python 3.11)
            return False
        finally:
            self._drop(read)
        return True

    def _add(self, read: _Read) -> bool:
        with self._lock:
            if len(self._reads) >= self._most or self._each[read.owner] >= self._most_each:
                self.refused += 1
                self._warn()
                return False
            self._reads.add(read)
            self._each[read.owner] += 1
            self._fresh = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="nanohubmcp-provenance-awaited", daemon=True)
                self._thread.start()
        return True

    def _drop(self, read: _Read) -> None:
        with self._lock:
            if read not in self._reads:
                return
            self._reads.discard(read)
            self._each[read.owner] -= 1
            if not self._each[read.owner]:
                del self._each[read.owner]

    def _warn(self) -> None:
        now = time.monotonic()
        if now - self._warned >= WARN_EVERY_SECONDS:
            self._warned = now
            log.warning("%d provenance reads wait for records of other processes (at most %d, %d per caller): "
                        "a further read of a record not stored is answered 'not found' at once (%d so far)",
                        len(self._reads), self._most, self._most_each, self.refused)

    def _watch(self) -> None:
        """The thread: look for the awaited records until none is awaited."""
        try:
            self._look_until_none_awaited()
        finally:  # (ended by a BaseException: the next read that waits starts another thread)
            with self._lock:
                if self._thread is threading.current_thread():
                    self._thread = None

    def _look_until_none_awaited(self) -> None:
        failing = False
        while True:
            with self._lock:
                if not self._reads:
                    self._thread = None
                    return
                fresh, self._fresh = self._fresh, False
                reads = list(self._reads)
            try:
                changed = self._lookup.changed()
                found = self._lookup.written({read.record_id for read in reads}) if changed or fresh else set()
            except Exception as exc:  # (the file unreadable, closed as the server stops, a lookup's own bug)
                if not failing:  # not found yet; the thread keeps looking, or each read would wait its whole time
                    log.warning("could not look for provenance records other processes write: %s", exc,
                                exc_info=not isinstance(exc, sqlite3.Error))
                failing, found = True, set()
            for read in reads:
                if read.record_id in found:
                    self._drop(read)
                    read.found()
            time.sleep(self._every)
