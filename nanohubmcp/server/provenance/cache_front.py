"""The result cache's in-process front: a repeated call answered without computing the store's key
or reading the store.

An entry is keyed by the call as received: the tool's name, who asks (as the store's key has it:
the principal, else the session; nobody for a ``cache="shared"`` tool), the protocol version and
route, and the arguments as the client sent them (their ``marshal`` bytes: the same bytes are the
same values, types and key order included; another spelling of the same call, e.g. ``3.0`` for
``3`` or a default given, is an entry of its own pointing at the same stored result). It holds the
stored result as the store's JSON text parses (kept as ``marshal`` bytes: each hit loads its own
copy, equal to the store's answer to the byte once written), the store's expiry and the tool it
was made for.

The key also holds the digest of what the tool's code reaches by global name (helpers,
constants: :mod:`.code_reach`) and the tool's code hash (for a tool whose code is files, of the
files as they are at the call), as the store's does: a name bound anew, or an edited program or
notebook, makes new keys.

The store stays the truth: an entry is used for at most :data:`CHECK_SECONDS` after it was read
from the store, then the next call reads the store's entry again by its key (refreshing its last
use, which orders the store's evictions, as every hit did) and answers what it holds now, or
nothing; so what another process did to the shared store (a tool registered again, an eviction,
a newer result) shows here within that time. An expired
entry is never answered; a tool registered again or removed and added answers nothing from
entries made for the earlier registration; :meth:`FrontCache.drop_tool` and :meth:`clear`
follow the store's invalidation. The front holds at most ``max_entries`` entries and
``max_bytes`` bytes (least recently used dropped first): every entry is keyed by client input.
"""

from __future__ import annotations

import json
import marshal
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

CHECK_SECONDS = 1.0
"""Longest an entry answers before the store is read again (the store's last-use resolution)."""
MAX_ENTRIES = 4096
"""Entries a front holds by default."""
MAX_BYTES = 16 * 1024 * 1024
"""Bytes (results plus keys) a front holds by default."""
ENTRY_OVERHEAD = 256
"""Bytes counted per entry beside its result and key (the tuple, the key's parts)."""
MARSHAL_VERSION = 2
"""``marshal`` format of keys and results: version 2 writes no back-references, so equal values
of equal types always give equal bytes (version 3 refers back to objects held elsewhere)."""


Read = Callable[[str, "float | None"], "tuple[str, float] | None"]
"""The store's entry of a key for its tool's ttl now: its JSON text and expiry (its last use refreshed), or None."""


class Entry(NamedTuple):
    store_key: str
    """The store's key of the result."""
    text: str
    """The store's JSON text of the result (a check finding it unchanged keeps ``blob``)."""
    blob: bytes
    """The result's ``marshal`` bytes."""
    tool: object
    """The registered tool it was made for (another registration answers nothing from it)."""
    name: str
    expires: float
    checked: float
    """When the store last said the result is there."""
    size: int
    ttl: float | None = None
    """The tool's ``cache_ttl`` (seconds) the store's entry is read with."""


def arguments_key(arguments: Any) -> bytes | None:
    """The arguments as received, as key bytes; None when they cannot be (too deeply nested)."""
    try:
        return marshal.dumps(arguments, MARSHAL_VERSION)
    except ValueError:  # nested beyond marshal's limit, or not JSON values
        return None


class FrontCache:
    """A bounded in-process map from a call as received to its stored result.

    Args:
        read: reads the store's entry of a key (to check an entry held :data:`CHECK_SECONDS`).
        max_entries: the most entries held.
        max_bytes: the most bytes held (each result's text and ``marshal`` bytes, its key's
            arguments and caller, and :data:`ENTRY_OVERHEAD`);
            a result over a quarter of it is not held (its calls read the store).
    """

    def __init__(self, read: Read, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self.read = read
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[Any, ...], Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...], tool: object, now: float) -> dict[str, Any] | None:
        """A copy of the result held for ``key`` made for ``tool``, or None (not held, made for
        another registration, expired, or no longer in the store when checked: an entry held for
        :data:`CHECK_SECONDS` is read from the store again)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry.tool is not tool or entry.expires < now:
                self._forget(key, entry)
                return None
            self._entries.move_to_end(key)
        if now - entry.checked > CHECK_SECONDS:
            return self._checked(key, entry, now)
        result: dict[str, Any] = marshal.loads(entry.blob)
        return result

    def _checked(self, key: tuple[Any, ...], entry: Entry, now: float) -> dict[str, Any] | None:
        """The store's result of ``entry`` now (held again), or None (gone from the store)."""
        found = self.read(entry.store_key, entry.ttl)
        if found is None:
            with self._lock:
                self._forget(key, entry)
            return None
        text, expires = found
        if text != entry.text:  # another process stored it anew
            result: dict[str, Any] = json.loads(text)
            self.put(key, entry.store_key, entry.tool, entry.name, text, result, expires, now, ttl=entry.ttl)
            return result
        with self._lock:
            if self._entries.get(key) is entry:
                self._entries[key] = entry._replace(expires=expires, checked=now)
        held: dict[str, Any] = marshal.loads(entry.blob)
        return held

    def _forget(self, key: tuple[Any, ...], entry: Entry) -> None:
        """Drop ``entry`` if ``key`` still holds it (the lock held)."""
        if self._entries.get(key) is entry:
            del self._entries[key]
            self._bytes -= entry.size

    def put(self, key: tuple[Any, ...], store_key: str, tool: object, name: str, text: str,
            result: dict[str, Any], expires: float, now: float, *, ttl: float | None = None) -> bool:
        """Hold ``result`` (the store's ``text`` of ``store_key`` parsed, before the caller changes
        it) for ``key``; False when it is too large to hold. ``expires``: the store's expiry of it for
        the tool's ``ttl`` (seconds; None: none), which each later read of the store is made with."""
        try:
            blob = marshal.dumps(result, MARSHAL_VERSION)
        except ValueError:
            return False
        size = sys.getsizeof(blob) + sys.getsizeof(text) + len(key[1]) + len(key[-1]) + len(store_key) + ENTRY_OVERHEAD
        if size > self.max_bytes // 4:
            return False
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old.size
            self._entries[key] = Entry(store_key, text, blob, tool, name, expires, now, size, ttl)
            self._bytes += size
            while self._bytes > self.max_bytes or len(self._entries) > self.max_entries:
                self._bytes -= self._entries.popitem(last=False)[1].size
        return True

    def drop_tool(self, name: str | None) -> int:
        """Forget every entry of tool ``name`` (of every tool with None); how many."""
        with self._lock:
            gone = [key for key, entry in self._entries.items() if name is None or entry.name == name]
            for key in gone:
                self._bytes -= self._entries.pop(key).size
        return len(gone)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def total(self) -> tuple[int, int]:
        """``(entries, bytes)`` held."""
        with self._lock:
            return len(self._entries), self._bytes
