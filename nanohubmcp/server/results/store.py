"""Large tool results kept as resources of the server, readable only by whoever made them.

A result bigger than ``max_inline_bytes`` is not put into the tool result (it would flood the
model's context); the full data is kept here under an unguessable URI and the result carries a
``resource_link`` to it (MCP 2025-11-25, Server § Tools § Resource links) plus a short preview.
``resources/read`` on that URI returns all of it (MCP 2025-11-25, Server § Resources § Reading
resources), for as long as a finished job's result stays readable (the server's job TTL).

Where: with a persistent job store, as files beside it (``<state dir>/results/<token><suffix>``
and a ``.meta.json`` naming owner, MIME type and expiry), so a link in a stored job result still
reads after a restart; with ``job_store="memory"``, in memory.

Ownership follows jobs: a result made by an authenticated caller belongs to that principal, one
made in a session to that session, and one made without either (a sessionless 2026-07-28 call,
REST) to whoever holds the URI. Any other caller gets the same "not found" as for a URI that never
existed. The store is bounded in total bytes (oldest entries go first when it is full) and per
owner (a quarter of the total by default: an owner's own oldest entries make room first, so one
busy session cannot push out everyone else's results); a single result larger than the whole
store is refused with an error that says so; a text written a part at a time (an array's JSON,
:meth:`ResultStore.keep_parts`) goes to a file as it is made and is refused as soon as it passes the
store's size, so it is never held whole. A link whose entry was dropped to make room reads as
"not found" with a message saying it was evicted and why (remembered for the last
:data:`EVICTED_REMEMBERED` such links), not as a URI that never existed.

The processes of a server sharing the state directory share the bounds: a result is kept holding the
folder's lock (:data:`.folder.LOCK_NAME`), once the index took in what the others kept and dropped since this
process last kept one, so both bounds are counted over all of them; an eviction leaves a note
(:data:`.folder.EVICTED_SUFFIX`) from which the others say so too. The lock is never waited for on an event
loop, and elsewhere for at most ``lock_wait_seconds``: a result whose lock another process held all that time
(stopped, paused in a debugger) is kept in this process's memory (logged), so its call still answers and no
other call waits. The folder's files themselves are :mod:`.folder`'s.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import io
import logging
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, BinaryIO, Final

from ..wire.state_dir import private_folder, private_opener
from . import DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_INLINE_BYTES, DEFAULT_STORE_BYTES
from .folder import (
    EVICTED_SUFFIX,
    KEPT_ERRORS,
    NAME,
    PART_SUFFIX,
    STALE_PART_SECONDS,
    FolderLock,
    finish,
    kept_names,
    read_meta,
    read_note,
    write_data,
    write_json,
)
from .kept_text import READ_PIECE_BYTES, kept_text
from .owners import PRINCIPAL_OWNER, SESSION_OWNER

log = logging.getLogger(__name__)

URI_PREFIX: Final = "nanohubmcp://results/"
"""Every kept result's URI starts with this; the rest is a random token and a file suffix."""

EVICTED_REMEMBERED: Final = 4096
"""How many evicted links the store remembers, to say so when one is read."""

LOCK_WAIT_SECONDS: Final = 10.0
"""How long a keep off the event loop waits for the results folder's lock another process holds, by default
(:attr:`ResultStore.lock_wait_seconds`); on the event loop it does not wait."""

class TooLargeToKeep(ValueError):
    """A result is larger than the whole store (``size`` bytes, or at least that many; ``limit``)."""

    def __init__(self, size: int, limit: int, *, at_least: bool = False) -> None:
        super().__init__(
            f"the result is {'at least ' if at_least else ''}{size} bytes, more than the server keeps for large "
            f"results ({limit}); {KEEP_LESS}")
        self.size = size
        self.at_least = at_least


KEEP_LESS: Final = ("return less data (a summary, a slice), or save it to a file and return its path, or have "
                    "the server's max_kept_bytes raised")
"""What a refusal to keep a result says to do."""


@dataclass
class _Entry:
    owner: str | None
    mime_type: str
    expires: float
    size: int
    data: bytes | bytearray | str | None = None  # None: in the file named by the URI


@dataclass
class ResultOptions:
    """How results are shaped.

    Attributes:
        max_inline_bytes: results larger than this (bytes of JSON text, or of PNG data) are kept
            as a resource and linked; None inlines everything.
        figure_dpi: dots per inch of matplotlib figures turned into PNG; None uses each figure's
            own ``dpi`` (so the image is ``figsize * dpi`` pixels).
        max_result_bytes: most bytes of JSON a result may put in an answer (one not kept as a
            resource: every REST answer, any MCP one with ``max_inline_bytes`` None); None: no limit.
    """

    max_inline_bytes: int | None = DEFAULT_MAX_INLINE_BYTES
    figure_dpi: float | None = None
    max_result_bytes: int | None = DEFAULT_MAX_ANSWER_BYTES

    def update(self, setting: str, value: float | None) -> None:
        """Change ``max_inline_bytes``, ``figure_dpi`` or ``max_result_bytes``; the next call shapes its
        result with it.

        Raises:
            ValueError: another setting name.
        """
        if setting in ("max_inline_bytes", "max_result_bytes"):
            setattr(self, setting, None if value is None else int(value))
        elif setting == "figure_dpi":
            self.figure_dpi = value
        else:
            raise ValueError(f"no result setting {setting!r} (max_inline_bytes, figure_dpi, max_result_bytes)")


class ResultStore:
    """Kept results by URI (thread-safe: conversions run on worker threads).

    Args:
        ttl: seconds an entry stays readable.
        max_bytes: total size kept; older entries are dropped to make room.
        max_bytes_per_owner: what one owner may keep (default a quarter of ``max_bytes``); their
            own oldest entries are dropped to make room.
        directory: ``directory()`` gives the state directory to keep files in, or None to keep
            results in memory; asked on first use (building a server writes nothing).
    """

    def __init__(
        self,
        ttl: float,
        max_bytes: int = DEFAULT_STORE_BYTES,
        directory: Callable[[], str | None] | None = None,
        max_bytes_per_owner: int | None = None,
    ) -> None:
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.max_bytes_per_owner = max_bytes_per_owner if max_bytes_per_owner is not None else max_bytes // 4
        self._directory = directory
        self._folder: str | None = None
        self._opened = False
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0
        self._evicted: OrderedDict[str, tuple[str | None, bool]] = OrderedDict()  # uri -> (owner, per owner)
        self._lock = threading.Lock()
        self._folder_lock: FolderLock | None = None
        self.lock_wait_seconds = LOCK_WAIT_SECONDS
        """Seconds a keep off the event loop waits for the folder's lock another process holds, then keeps
        its result in memory."""
        self.read_piece_bytes = READ_PIECE_BYTES
        """Bytes of a kept file read at a time when its answer is written a piece at a time."""

    # -- where ----------------------------------------------------------------------------
    def _open(self) -> str | None:
        """The results folder (created, with what an earlier process left indexed), or None."""
        if not self._opened:
            self._opened = True
            base = self._directory() if self._directory is not None else None
            if base:
                folder = os.path.join(base, "results")
                try:
                    private_folder(folder)
                    self._folder = folder
                    self._folder_lock = FolderLock(folder)
                    self._index_files(folder)
                except OSError as exc:
                    log.warning("large results stay in memory: cannot use %s (%s)", folder, exc)
        return self._folder

    def _index_files(self, folder: str) -> None:
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
        for meta in sorted(found, key=lambda m: m["expires"]):
            self._entries[meta["uri"]] = _Entry(meta["owner"], meta["mime_type"], meta["expires"], meta["size"])
            self._bytes += meta["size"]

    def _shared(self, last: bool = True) -> contextlib.AbstractContextManager[bool]:
        """Hold the results folder's lock, the index brought up to what every process sharing the folder kept
        and dropped (the bounds are then counted over all of them, and one keep at a time is decided among
        them): True; or False (logged, unless not ``last``: the keep is finished off the loop) when it is not
        had in time — at once on an event loop, else within :attr:`lock_wait_seconds` — and the result is kept
        in memory. Without a folder: nothing to share (True). Taken without :attr:`_lock` held, so reads go on
        while a keep waits."""
        folder, lock = self._folder, self._folder_lock
        if folder is None or lock is None:
            return contextlib.nullcontext(True)
        return lock.holding(lambda: self._taken_in(folder), 0.0 if _on_loop() else self.lock_wait_seconds,
                            last=last)

    def _taken_in(self, folder: str) -> None:
        with self._lock:
            self._take_in(folder)

    def _take_in(self, folder: str) -> None:
        """Bring the index up to the results kept in the folder (the folder's lock held): drop what another
        process dropped, add what another kept, in the order of their expiry; what a process killed while
        keeping or dropping a result left goes (:func:`.folder.kept_names`)."""
        entries = self._entries
        on_disk = {URI_PREFIX + name for name in kept_names(folder)}
        filed = {uri for uri, entry in entries.items() if entry.data is None}
        for uri in filed - on_disk:
            self._bytes -= entries.pop(uri).size
        added = False
        for uri in on_disk - filed:
            meta = read_meta(os.path.join(folder, uri[len(URI_PREFIX) :] + ".meta.json"))
            if meta is not None and meta["uri"] == uri and uri not in entries:
                entries[uri] = _Entry(meta["owner"], meta["mime_type"], meta["expires"], meta["size"])
                self._bytes += meta["size"]
                added = True
        if added:
            self._entries = OrderedDict(sorted(entries.items(), key=lambda item: item[1].expires))

    def _path(self, uri: str) -> str | None:
        name = uri[len(URI_PREFIX) :] if uri.startswith(URI_PREFIX) else ""
        if self._folder is None or not NAME.match(name):
            return None
        return os.path.join(self._folder, name)

    # -- keep / read ----------------------------------------------------------------------
    def keep(self, data: bytes | bytearray | str, mime_type: str, suffix: str, owner: str | None,
             later: list[Callable[[], object]] | None = None) -> str:
        """Store ``data`` and return its new URI (``nanohubmcp://results/<token><suffix>``).

        ``later``: where a keep made on an event loop that finds the results folder's lock held (by another
        process, or another thread of this one) puts the function that finishes it, to be called off the
        loop before the URI is given out (it waits for the lock up to :attr:`lock_wait_seconds`, as any keep
        off the loop does; the URI reads nothing until it ran). Without it such a keep keeps ``data`` in this
        process's memory at once (logged). Off the loop the keep waits in place and ``later`` is not used.

        Raises:
            TooLargeToKeep: ``data`` is larger than the whole store.

        .. versionchanged:: 1.0
           ``later``: a busy lock on the event loop is waited for off it (it kept the result in memory).
        """
        uri = f"{URI_PREFIX}{secrets.token_urlsafe(24)}{suffix}"
        entry = _Entry(owner, mime_type, time.time() + self.ttl, utf8_size(data))
        if entry.size > self.max_bytes:
            raise TooLargeToKeep(entry.size, self.max_bytes)
        with self._lock:
            folder = self._open()
        if later is not None and _on_loop():
            if not self._file(uri, entry, data, folder, last=False):  # (the one non-blocking try, on the loop)
                later.append(functools.partial(self._file, uri, entry, data, folder))
        else:
            self._file(uri, entry, data, folder)
        return uri

    def _file(self, uri: str, entry: _Entry, data: bytes | bytearray | str, folder: str | None,
              last: bool = True) -> bool:
        """Add ``entry`` (its ``data``) under ``uri``: written to the folder holding its lock, else (the lock
        not had in time, the folder away) held in memory. Not ``last`` and the lock not had: nothing done,
        False."""
        with self._shared(last) as shared:
            if not shared and not last:
                return False
            with self._lock:
                self._make_room(entry)
                path = self._path(uri) if folder and shared else None
                if path is None or not write_data(path, data, _meta(uri, entry)):
                    entry.data = data
                self._add(uri, entry)
        return True

    def keep_parts(self, parts: Callable[[], Iterable[str]], mime_type: str, suffix: str,
                   owner: str | None) -> tuple[str, int]:
        """Store the text ``parts()`` makes, a part at a time, and return its new URI and its size.

        Each part is written to a file as it is made, so the text is never held whole while it is
        written, nor at all when it is refused: with a folder the file becomes the entry once
        complete; in memory an unnamed temporary file is read back once complete (the entry's one
        copy). When a file cannot be written (a full disk: logged), ``parts()`` is made again into memory.

        Raises:
            TooLargeToKeep: as soon as the parts made are larger than the whole store (``size``: the
                bytes made so far, a lower bound); nothing is kept.
        """
        with self._lock:
            folder = self._open()
        uri = f"{URI_PREFIX}{secrets.token_urlsafe(24)}{suffix}"
        path = self._path(uri) if folder else None
        try:
            if path is not None:
                try:
                    with open(path + PART_SUFFIX, "wb", opener=private_opener) as f:
                        size = self._spool(f.write, parts())
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.remove(path + PART_SUFFIX)
                    raise
                entry = _Entry(owner, mime_type, time.time() + self.ttl, size)
                if self._finish_part(uri, path, entry):
                    return uri, size
            else:
                import tempfile  # (only for such a result: it loads shutil and random)

                with tempfile.TemporaryFile() as f:
                    size = self._spool(f.write, parts())
                    f.seek(0)
                    kept = _read_back(f, size)
                return self.keep(kept, mime_type, suffix, owner), size
        except OSError as exc:
            log.warning("cannot write the large result %s: %s", uri, exc)
        kept = bytearray()
        size = self._spool(kept.extend, parts())
        return self.keep(kept, mime_type, suffix, owner), size

    def _finish_part(self, uri: str, path: str, entry: _Entry) -> bool:
        """Make the text written to ``path + PART_SUFFIX`` the entry of ``uri``: its file, named holding the
        folder's lock; read back into memory (its one copy) when the lock is not had in time (logged). False
        when it cannot be named (logged, nothing of it left).

        Raises:
            OSError: it cannot be read back (nothing of it left).
        """
        with self._shared() as shared:
            if shared:
                with self._lock:
                    self._make_room(entry)
                    if not finish(path, _meta(uri, entry)):
                        return False
                    self._add(uri, entry)
                    return True
        try:
            with open(path + PART_SUFFIX, "rb") as f:
                entry.data = _read_back(f, entry.size)
        finally:
            with contextlib.suppress(OSError):
                os.remove(path + PART_SUFFIX)
        with self._lock:
            self._make_room(entry)
            self._add(uri, entry)
        return True

    def _spool(self, write: Callable[[bytes], object], parts: Iterable[str]) -> int:
        """``write`` each of ``parts`` as UTF-8 and return their size in bytes.

        Raises:
            TooLargeToKeep: the parts are larger than the store (the part that passes it is not written).
        """
        size = 0
        for part in parts:
            data = part.encode("utf-8", KEPT_ERRORS)
            size += len(data)
            if size > self.max_bytes:
                raise TooLargeToKeep(size, self.max_bytes, at_least=True)
            write(data)
        return size

    def _make_room(self, entry: _Entry) -> None:
        """Evict what must go for ``entry`` to fit: its owner's oldest beyond their share, then the
        oldest of all beyond the store's size (the lock held)."""
        self._sweep(time.time())
        mine = [u for u, e in self._entries.items() if e.owner == entry.owner]
        held = sum(self._entries[u].size for u in mine)
        while mine and held + entry.size > self.max_bytes_per_owner:
            held -= self._entries[mine[0]].size
            self._evict(mine.pop(0), per_owner=True)
        while self._entries and self._bytes + entry.size > self.max_bytes:
            self._evict(next(iter(self._entries)), per_owner=False)

    def _add(self, uri: str, entry: _Entry) -> None:
        self._entries[uri] = entry
        self._bytes += entry.size

    def read(self, uri: str, owner: str | None, *, pieces: bool = False) -> dict[str, Any] | None:
        """The ``ReadResourceResult`` of ``uri`` for ``owner``, or None (unknown, expired, not theirs).

        With ``pieces`` (the answer is written a piece at a time: :data:`~nanohubmcp.server.wire.request.STREAMS_TEXT`),
        the text of a result kept in a file is that file, open, as a :class:`~.kept_text.KeptText`
        (read a :attr:`read_piece_bytes` piece at a time), not a ``str`` (but for a text holding a lone
        surrogate, whose answer is written whole with ``\\u`` escapes: :func:`~.kept_text.kept_text`).

        Raises:
            UnicodeDecodeError: a textual result whose data is not UTF-8.
        """
        with self._lock:
            self._open()
            self._sweep(time.time())
            entry = self._entries.get(uri) or self._from_file(uri)
            if entry is None or (entry.owner is not None and entry.owner != owner):
                return None
            textual = entry.mime_type.startswith("text/") or entry.mime_type == "application/json"
            data = entry.data
            kept: BinaryIO | None = None
            if data is None:
                path = self._path(uri)
                if path is None:
                    return None
                try:
                    kept = open(path, "rb")  # noqa: SIM115  (closed below, or by the KeptText that owns it)
                except OSError:
                    return None
                if not (pieces and textual):
                    with kept:
                        data = kept.read()
        item: dict[str, Any] = {"uri": uri, "mimeType": entry.mime_type}
        if data is None:  # opened while the entry was known: read whole even if it goes meanwhile
            assert kept is not None
            item["text"] = kept_text(kept, self.read_piece_bytes, KEPT_ERRORS)  # (counted outside the lock)
        elif isinstance(data, str):
            item["text"] = data
        elif textual:
            item["text"] = data.decode("utf-8", KEPT_ERRORS)
        else:
            item["blob"] = base64.b64encode(data).decode("ascii")
        return {"contents": [item]}

    def evicted(self, uri: str, owner: str | None) -> str | None:
        """Why ``uri`` no longer reads when it was ``owner``'s and was dropped to make room (by this
        process, or another sharing the results folder), else None."""
        with self._lock:
            found = self._evicted.get(uri)
            if found is None:
                found = self._evicted_elsewhere(uri)
        if found is None or (found[0] is not None and found[0] != owner):
            return None
        if found[1]:
            kept_by = found[0] or ""
            whose = ("session" if kept_by.startswith(SESSION_OWNER) else
                     "principal" if kept_by.startswith(PRINCIPAL_OWNER) else "caller")
            bound = f"at most {self.max_bytes_per_owner} bytes of large results per {whose}"
        else:
            bound = f"at most {self.max_bytes} bytes of large results for all callers"
        return (f"Resource evicted: {uri}: the server keeps {bound}, the oldest dropped first to keep newer "
                "ones; read a result's link before asking for more large results, or ask for less data")

    def _evict(self, uri: str, *, per_owner: bool) -> None:
        """Drop ``uri`` to make room, remembering it was evicted (in the folder too, for the other
        processes sharing it, until the link would have expired)."""
        entry = self._entries[uri]
        self._evicted[uri] = (entry.owner, per_owner)
        while len(self._evicted) > EVICTED_REMEMBERED:
            self._evicted.popitem(last=False)
        path = self._path(uri) if entry.data is None else None
        if path is not None:
            with contextlib.suppress(OSError):
                write_json(path + EVICTED_SUFFIX, {"uri": uri, "owner": entry.owner, "per_owner": per_owner,
                                                    "expires": entry.expires})
        self._drop(uri)

    def _evicted_elsewhere(self, uri: str) -> tuple[str | None, bool] | None:
        """``(owner, per owner)`` of ``uri`` when a process sharing the folder evicted it."""
        path = self._path(uri)
        note = read_note(path + EVICTED_SUFFIX) if path is not None else None
        if note is None or note["uri"] != uri:
            return None
        return note.get("owner"), bool(note.get("per_owner"))

    def _from_file(self, uri: str) -> _Entry | None:
        """An entry another process of this server kept since this one opened the folder."""
        path = self._path(uri)
        meta = read_meta(path + ".meta.json") if path is not None else None
        if meta is None or meta["uri"] != uri:
            return None
        entry = _Entry(meta["owner"], meta["mime_type"], meta["expires"], meta["size"])
        self._add(uri, entry)
        for later in [u for u, e in self._entries.items() if e.expires > entry.expires]:
            self._entries.move_to_end(later)  # (in its place by age: the oldest is evicted first)
        return entry

    def __len__(self) -> int:
        return len(self._entries)

    def _sweep(self, now: float) -> None:
        for uri in [u for u, e in self._entries.items() if e.expires <= now]:
            self._drop(uri)

    def _drop(self, uri: str) -> None:
        entry = self._entries.pop(uri)
        self._bytes -= entry.size
        path = self._path(uri) if entry.data is None else None
        if path is not None:
            for name in (path, path + ".meta.json"):
                with contextlib.suppress(OSError):
                    os.remove(name)


def _on_loop() -> bool:
    """Whether this thread runs an event loop (which must never wait for the folder's lock)."""
    return asyncio._get_running_loop() is not None


def _read_back(f: io.BufferedIOBase, size: int) -> bytearray:
    """The ``size`` bytes of ``f`` from where it is.

    Raises:
        OSError: fewer could be read.
    """
    kept = bytearray(size)
    if f.readinto(kept) != size:
        raise OSError(f"read back fewer than the {size} bytes written")
    return kept


def utf8_size(data: bytes | bytearray | str) -> int:
    """The bytes ``data`` takes as UTF-8, without encoding a copy of ASCII text (a kept array's JSON)."""
    if isinstance(data, str):
        return len(data) if data.isascii() else len(data.encode("utf-8", KEPT_ERRORS))
    return len(data)


def _meta(uri: str, entry: _Entry) -> dict[str, Any]:
    return {"uri": uri, "owner": entry.owner, "mime_type": entry.mime_type, "expires": entry.expires,
            "size": entry.size}


