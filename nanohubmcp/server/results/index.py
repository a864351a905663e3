"""The index of one result store: which kept result is whose, for which job, how big and until when, oldest
first, with their total size; what is evicted when a result is added (its owner's share, then the store's
size: remembered and explained by :mod:`.evictions`), what expired is swept, and a dropped entry's files.

Not locked: :class:`~.store.ResultStore` calls it holding its own lock, and decides when (the folder's lock
held, the keep put off from the event loop) and how data is written and read. The folder's files are
:mod:`.shared_folder`'s and :mod:`.folder`'s.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from .evictions import Eviction, Evictions
from .shared_folder import SharedFolder

__all__ = ["KeptEntry", "ResultIndex"]


@dataclass
class KeptEntry:
    """One kept result: its owner key (None: whoever holds the link), MIME type, expiry (a time.time()), size
    in bytes, its data (None: in the file its URI names) and the job whose result it is (None: a call's own)."""

    owner: str | None
    mime_type: str
    expires: float
    size: int
    data: bytes | bytearray | str | None = None
    job: str | None = None
    encoded: bytes | None = None
    """The UTF-8 of a ``str`` ``data`` of a MIME type read as bytes, made at its first part read (the parts are
    cut from it: :meth:`~.store.ResultStore.read_part`); None until then."""

    @classmethod
    def of(cls, meta: dict[str, Any]) -> KeptEntry:
        """The entry a ``.meta.json`` describes (its data in the file beside it; an earlier version's names no
        job)."""
        job = meta.get("job")
        return cls(meta["owner"], meta["mime_type"], meta["expires"], meta["size"],
                   job=job if isinstance(job, str) else None)

    def meta(self, uri: str) -> dict[str, Any]:
        """What the ``.meta.json`` of ``uri`` says of this entry."""
        return {"uri": uri, "owner": self.owner, "job": self.job, "mime_type": self.mime_type,
                "expires": self.expires, "size": self.size}


class ResultIndex:
    """The entries of one store by URI, oldest first, and their total size in bytes (:attr:`size`).

    Args:
        files: the store's results folder: a dropped entry's files are removed there, an evicted one's note
            left there, and what another process kept since is read from there (:meth:`known`).
        evictions: where what this index evicts is remembered (the store reads it to say so).
    """

    def __init__(self, files: SharedFolder, evictions: Evictions) -> None:
        self._files = files
        self._evictions = evictions
        self._entries: OrderedDict[str, KeptEntry] = OrderedDict()
        self.size = 0
        """Bytes of all the entries."""

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, uri: str) -> KeptEntry | None:
        """The entry of ``uri`` in this index (not looked for in the folder: :meth:`known`), or None."""
        return self._entries.get(uri)

    def known(self, uri: str) -> KeptEntry | None:
        """The entry of ``uri``: in this index, or kept by another process of this server since this one
        opened the folder (then added, in its place by age: the oldest is evicted first); else None."""
        entry = self._entries.get(uri)
        if entry is not None:
            return entry
        meta = self._files.meta(uri)
        if meta is None:
            return None
        entry = KeptEntry.of(meta)
        self.add(uri, entry)
        for later in [u for u, e in self._entries.items() if e.expires > entry.expires]:
            self._entries.move_to_end(later)
        return entry

    def add(self, uri: str, entry: KeptEntry) -> None:
        """Index ``entry`` under ``uri``, as the newest."""
        self._entries[uri] = entry
        self.size += entry.size

    def take_in(self) -> None:
        """Bring the index up to the results kept in the folder (its lock held): drop what another process
        dropped, add what another kept, in the order of their expiry.

        Raises:
            OSError: the folder cannot be listed.
        """
        entries = self._entries
        gone, added = self._files.changes({uri for uri, entry in entries.items() if entry.data is None})
        for uri in gone:
            self.size -= entries.pop(uri).size
        added = [meta for meta in added if meta["uri"] not in entries]
        for meta in added:
            self.add(meta["uri"], KeptEntry.of(meta))
        if added:
            self._entries = OrderedDict(sorted(entries.items(), key=lambda item: item[1].expires))

    def make_room(self, entry: KeptEntry, max_bytes: int, max_bytes_per_owner: int) -> None:
        """Evict what must go for ``entry`` to fit: its owner's oldest beyond ``max_bytes_per_owner``, then the
        oldest of all beyond ``max_bytes`` (the expired swept first). A copy of ``entry`` itself (the same
        job's, owner's, type and size: another process keeping the same job's data at the same moment, one of
        the two copies dropped once they compared) is spared: evicting it would kill the link already answered.

        .. versionchanged:: 1.0
           A copy of the entry is spared.
        """
        self.sweep(time.time())
        spared = {u for u, e in self._entries.items() if entry.job is not None
                  and (e.job, e.owner, e.mime_type, e.size) == (entry.job, entry.owner, entry.mime_type, entry.size)}
        mine = [u for u, e in self._entries.items() if e.owner == entry.owner and u not in spared]
        held = sum(e.size for e in self._entries.values() if e.owner == entry.owner)
        while mine and held + entry.size > max_bytes_per_owner:
            held -= self._entries[mine[0]].size
            self._evict(mine.pop(0), per_owner=True)
        others = (u for u in list(self._entries) if u not in spared)
        while self.size + entry.size > max_bytes and (oldest := next(others, None)) is not None:
            self._evict(oldest, per_owner=False)

    def sweep(self, now: float) -> None:
        """Drop every entry expired at ``now`` (a time.time())."""
        for uri in [u for u, e in self._entries.items() if e.expires <= now]:
            self.drop(uri)

    def drop(self, uri: str) -> None:
        """Drop the indexed ``uri`` and, kept in the folder, its files (those already gone are no error).

        Raises:
            KeyError: ``uri`` is not indexed.
        """
        entry = self._entries.pop(uri)
        self.size -= entry.size
        path = self._files.path(uri) if entry.data is None else None
        if path is not None:
            for name in (path, path + ".meta.json"):
                with contextlib.suppress(OSError):
                    os.remove(name)

    def _evict(self, uri: str, *, per_owner: bool) -> None:
        """Drop ``uri`` to make room, remembering it was evicted (in the folder too, for the other
        processes sharing it, until the link would have expired)."""
        entry = self._entries[uri]
        path = self._files.path(uri) if entry.data is None else None
        self._evictions.add(uri, Eviction(entry.owner, per_owner, entry.job), entry.expires, path)
        self.drop(uri)
