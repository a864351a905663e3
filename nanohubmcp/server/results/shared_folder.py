"""One store's results folder (``<state dir>/results``), shared with the other processes of its server.

:class:`SharedFolder` opens the folder at the store's first use (made private; a folder that cannot be used
leaves results in memory, logged) and says what an earlier process left in it; names a kept result's file by
its URI; holds the folder's lock (:class:`.folder.FolderLock`) around a keep; and, the lock held, says what
the others kept and dropped since (:meth:`SharedFolder.changes`) or what one of them kept that a read asks
for (:meth:`SharedFolder.meta`). It reads and removes files only: the index those become, the bounds and
the evictions are :mod:`.index`'s; the files' formats and the lock itself are :mod:`.folder`'s.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Set
from typing import Any

from ..wire.state_dir import private_folder
from .folder import EVICTED_SUFFIX, NAME, PART_SUFFIX, STALE_PART_SECONDS, FolderLock, kept_names, read_meta, read_note

__all__ = ["SharedFolder"]

log = logging.getLogger("nanohubmcp.server.results.store")  # (the store's log, as the folder's is)


class SharedFolder:
    """The results folder of one store, its results named by URI (``prefix`` and the file's name).

    Args:
        directory: ``directory()`` gives the state directory, or None: no folder (results in memory).
        prefix: the start of every kept result's URI; the rest is its file's name (:data:`.folder.NAME`).
    """

    def __init__(self, directory: Callable[[], str | None] | None, prefix: str) -> None:
        self._directory = directory
        self._prefix = prefix
        self.folder: str | None = None
        """The folder, once :meth:`open` made it; None before, or without one."""
        self._lock: FolderLock | None = None

    def open(self) -> list[dict[str, Any]]:
        """Make the folder and return the ``.meta.json`` of each result an earlier process left there, by
        expiry (a ``.part`` file not written to for :data:`.folder.STALE_PART_SECONDS` and an expired
        eviction note are removed); [] without a state directory or when the folder cannot be used (logged).
        Called once, at the store's first use (building a server writes nothing)."""
        base = self._directory() if self._directory is not None else None
        if not base:
            return []
        folder = os.path.join(base, "results")
        try:
            private_folder(folder)
            self.folder = folder
            self._lock = FolderLock(folder)
            return _found_in(folder)
        except OSError as exc:
            log.warning("large results stay in memory: cannot use %s (%s)", folder, exc)
            return []

    def path(self, uri: str) -> str | None:
        """The file of the kept result ``uri``, or None (no folder, or not a kept result's URI)."""
        name = uri[len(self._prefix) :] if uri.startswith(self._prefix) else ""
        if self.folder is None or not NAME.match(name):
            return None
        return os.path.join(self.folder, name)

    def holding(self, take_in: Callable[[], None], wait: float, *,
                last: bool = True) -> contextlib.AbstractContextManager[bool]:
        """The folder's lock held, as :meth:`.folder.FolderLock.holding` (``take_in()`` first when another
        process held it since, ``wait``, ``last``); without a folder nothing is shared: True."""
        if self.folder is None or self._lock is None:
            return contextlib.nullcontext(True)
        return self._lock.holding(take_in, wait, last=last)

    def changes(self, filed: Set[str]) -> tuple[set[str], list[dict[str, Any]]]:
        """Against ``filed`` (the URIs an index holds in files): those no longer in the folder, and the
        ``.meta.json`` of those another process kept there since. With the lock held only: what a process
        killed while keeping or dropping a result left goes (:func:`.folder.kept_names`).

        Raises:
            OSError: the folder cannot be listed.
        """
        assert self.folder is not None
        on_disk = {self._prefix + name for name in kept_names(self.folder)}
        added = [meta for meta in map(self.meta, on_disk - filed) if meta is not None]
        return set(filed) - on_disk, added

    def meta(self, uri: str) -> dict[str, Any] | None:
        """The ``.meta.json`` of ``uri`` in the folder (kept by any process sharing it), or None."""
        path = self.path(uri)
        meta = read_meta(path + ".meta.json") if path is not None else None
        return meta if meta is not None and meta["uri"] == uri else None


def _found_in(folder: str) -> list[dict[str, Any]]:
    found = []
    stale = time.time() - STALE_PART_SECONDS
    for name in os.listdir(folder):
        if name.endswith(PART_SUFFIX):  # a result being written, or left by a process that died
            with contextlib.suppress(OSError):
                if os.path.getmtime(os.path.join(folder, name)) < stale:
                    os.remove(os.path.join(folder, name))
        elif name.endswith(".meta.json"):
            meta = read_meta(os.path.join(folder, name))
            if meta is not None:
                found.append(meta)
        elif name.endswith(EVICTED_SUFFIX):
            read_note(os.path.join(folder, name))  # (removed once its link would have expired)
    return sorted(found, key=lambda m: m["expires"])
