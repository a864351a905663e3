"""Large tool results kept as resources of the server, readable only by whoever made them (and, what a job kept,
by whoever may read the job).

A result bigger than ``max_inline_bytes`` is not put into the tool result (it would flood the
model's context); the full data is kept here under an unguessable URI and the result carries a
``resource_link`` to it (MCP 2025-11-25, Server § Tools § Resource links) plus a short preview.
``resources/read`` on that URI returns all of it (MCP 2025-11-25, Server § Resources § Reading
resources), for as long as a finished job's result stays readable (the server's job TTL).

Where: with a persistent job store, as files beside it (``<state dir>/results/<token><suffix>``
and a ``.meta.json`` naming owner, job, MIME type and expiry), so a link in a stored job result still
reads after a restart; with ``job_store="memory"``, in memory.

Ownership follows jobs: a result made by an authenticated caller belongs to that principal, one
made in a session to that session, and one made without either (a sessionless 2026-07-28 call,
REST) to whoever holds the URI. A job's result (its data, a picture or file kept at its end) names
its job too (:meth:`ResultStore.kept_by`), so that whoever may read the job by its id reads it as
well (the caller of ``resources/read`` decides: :mod:`~nanohubmcp.server.handlers.kept_reader`).
Any other caller gets the same "not found" as for a URI that never existed.

The store is bounded in total bytes (oldest entries go first when it is full) and per owner (a quarter of the
total by default: an owner's own oldest entries make room first, so one busy session cannot push out everyone
else's results); a single result larger than the whole store is refused with an error that says so; a text
written a part at a time (an array's JSON, :meth:`ResultStore.keep_parts`) goes to a file as it is made and is
refused as soon as it passes the store's size, so it is never held whole. A link whose entry was dropped to make
room reads as "not found" with a message saying it was evicted and why, not as a URI that never existed.

The processes of a server sharing the state directory share the bounds: a result is kept holding the
folder's lock (:data:`.folder.LOCK_NAME`), once the index took in what the others kept and dropped since this
process last kept one, so both bounds are counted over all of them.

This module owns the keeps (where a result's data goes, the folder's lock held) and the reads. It composes,
each a module of its own: the index of what is kept for whom, its bounds and what is evicted for them
(:mod:`.index`), the folder's files and lock (:mod:`.folder`), how long a keep waits for the lock and the keep
put off from the event loop (:mod:`.deferred`), a text written a part at a time (:mod:`.spool`), the evicted
links remembered and explained (:mod:`.evictions`), a kept result's size and its refusal (:mod:`.kept_size`).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO

from . import DEFAULT_STORE_BYTES, RESULT_URI_PREFIX
from .deferred import LOCK_WAIT_SECONDS, Finish, file_now_or_later, lock_wait
from .evictions import Evictions
from .folder import KEPT_ERRORS, finish, write_data
from .index import KeptEntry, ResultIndex
from .kept_parts import cut_part, is_textual
from .kept_size import TooLargeToKeep, utf8_size
from .kept_text import READ_PIECE_BYTES, kept_text
from .owners import KeptBy
from .shared_folder import SharedFolder
from .spool import read_part, spool, to_memory, to_part_file, unfinished

__all__ = ["ResultStore"]

log = logging.getLogger(__name__)


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
        self._files = SharedFolder(directory, RESULT_URI_PREFIX)
        self._opened = False
        self._evictions = Evictions()
        self._index = ResultIndex(self._files, self._evictions)
        self._lock = threading.Lock()
        self.lock_wait_seconds = LOCK_WAIT_SECONDS
        """Seconds a keep off the event loop waits for the folder's lock another process holds, then keeps
        its result in memory."""
        self.read_piece_bytes = READ_PIECE_BYTES
        """Bytes of a kept file read at a time when its answer is written a piece at a time."""

    # -- where ----------------------------------------------------------------------------
    def _open(self) -> str | None:
        """The results folder (made at the first call, with what an earlier process left indexed), or None."""
        if not self._opened:
            self._opened = True
            for meta in self._files.open():
                self._index.add(meta["uri"], KeptEntry.of(meta))
        return self._files.folder

    def _shared(self, last: bool = True) -> contextlib.AbstractContextManager[bool]:
        """Hold the results folder's lock, the index brought up to what every process sharing the folder kept
        and dropped (the bounds are then counted over all of them, and one keep at a time is decided among
        them): True; or False (logged, unless not ``last``: the keep is finished off the loop) when it is not
        had in time (:func:`.deferred.lock_wait`) and the result is kept in memory. Without a folder: nothing
        to share (True). Taken without :attr:`_lock` held, so reads go on while a keep waits."""
        return self._files.holding(self._taken_in, lock_wait(self.lock_wait_seconds), last=last)

    def _taken_in(self) -> None:
        with self._lock:
            self._index.take_in()

    # -- keep / read ----------------------------------------------------------------------
    def keep(self, data: bytes | bytearray | str, mime_type: str, suffix: str, owner: str | None,
             later: list[Finish] | None = None, *, job: str | None = None) -> str:
        """Store ``data`` and return its new URI (``nanohubmcp://results/<token><suffix>``); ``job``: the id
        of the job whose result it is (:meth:`kept_by`).

        ``later``: where a keep made on an event loop that finds the results folder's lock held (by another
        process, or another thread of this one) puts the function that finishes it, to be called off the
        loop before the URI is given out (it waits for the lock up to :attr:`lock_wait_seconds`, as any keep
        off the loop does; the URI reads nothing until it ran: :mod:`.deferred`). Without it such a keep
        keeps ``data`` in this process's memory at once (logged). Off the loop the keep waits in place and
        ``later`` is not used.

        Raises:
            TooLargeToKeep: ``data`` is larger than the whole store.

        .. versionchanged:: 1.0
           ``later``: a busy lock on the event loop is waited for off it (it kept the result in memory);
           ``job``.
        """
        uri = f"{RESULT_URI_PREFIX}{secrets.token_urlsafe(24)}{suffix}"
        entry = KeptEntry(owner, mime_type, time.time() + self.ttl, utf8_size(data), job=job)
        if entry.size > self.max_bytes:
            raise TooLargeToKeep(entry.size, self.max_bytes)
        with self._lock:
            folder = self._open()
        file_now_or_later(functools.partial(self._file, uri, entry, data, folder), later)
        return uri

    def _file(self, uri: str, entry: KeptEntry, data: bytes | bytearray | str, folder: str | None,
              last: bool = True) -> bool:
        """Add ``entry`` (its ``data``) under ``uri``: written to the folder holding its lock, else (the lock
        not had in time, the folder away) held in memory. Not ``last`` and the lock not had: nothing done,
        False."""
        with self._shared(last) as shared:
            if not shared and not last:
                return False
            with self._lock:
                self._make_room(entry)
                path = self._files.path(uri) if folder and shared else None
                if path is None or not write_data(path, data, entry.meta(uri)):
                    entry.data = data
                self._index.add(uri, entry)
        return True

    def keep_parts(self, parts: Callable[[], Iterable[str]], mime_type: str, suffix: str,
                   owner: str | None, *, job: str | None = None) -> tuple[str, int]:
        """Store the text ``parts()`` makes, a part at a time, and return its new URI and its size (``job``: as
        :meth:`keep`'s).

        Each part is written to a file as it is made (:mod:`.spool`), so the text is never held whole
        while it is written, nor at all when it is refused: with a folder the file becomes the entry once
        complete; in memory an unnamed temporary file is read back once complete (the entry's one
        copy). When a file cannot be written (a full disk: logged), ``parts()`` is made again into memory.

        Raises:
            TooLargeToKeep: as soon as the parts made are larger than the whole store (``size``: the
                bytes made so far, a lower bound); nothing is kept.
        """
        with self._lock:
            folder = self._open()
        uri = f"{RESULT_URI_PREFIX}{secrets.token_urlsafe(24)}{suffix}"
        path = self._files.path(uri) if folder else None
        try:
            if path is not None:
                with unfinished(path):  # (removed at the exit until named, the folder's lock waited for too)
                    size = to_part_file(path, parts, self.max_bytes)
                    entry = KeptEntry(owner, mime_type, time.time() + self.ttl, size, job=job)
                    if self._finish_part(uri, path, entry):
                        return uri, size
            else:
                kept, size = to_memory(parts, self.max_bytes)
                return self.keep(kept, mime_type, suffix, owner, job=job), size
        except OSError as exc:
            log.warning("cannot write the large result %s: %s", uri, exc)
        kept = bytearray()
        size = spool(kept.extend, parts(), self.max_bytes)
        return self.keep(kept, mime_type, suffix, owner, job=job), size

    def _finish_part(self, uri: str, path: str, entry: KeptEntry) -> bool:
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
                    if not finish(path, entry.meta(uri)):
                        return False
                    self._index.add(uri, entry)
                    return True
        entry.data = read_part(path, entry.size)
        with self._lock:
            self._make_room(entry)
            self._index.add(uri, entry)
        return True

    def _make_room(self, entry: KeptEntry) -> None:
        self._index.make_room(entry, self.max_bytes, self.max_bytes_per_owner)

    def _entry_for(self, uri: str, owner: str | None) -> KeptEntry | None:
        """The entry of ``uri`` if ``owner`` may read it (known, not expired, theirs or no one's); under the lock."""
        self._open()
        self._index.sweep(time.time())
        entry = self._index.known(uri)
        if entry is None or (entry.owner is not None and entry.owner != owner):
            return None
        return entry

    def read(self, uri: str, owner: str | None, *, pieces: bool = False) -> dict[str, Any] | None:
        """The ``ReadResourceResult`` of ``uri`` for ``owner``, or None (unknown, expired, not theirs).

        With ``pieces`` (the answer is written a piece at a time: :data:`~nanohubmcp.server.wire.request.STREAMS_TEXT`),
        the text of a result kept in a file is that file, open, as a :class:`~.kept_text.KeptText`
        (read a :attr:`read_piece_bytes` piece at a time), not a ``str`` (a text holding UTF-16 surrogates
        too, its pieces as the wire writes it: :func:`~.kept_text.kept_text`).

        Raises:
            UnicodeDecodeError: a textual result whose data is not UTF-8.
        """
        with self._lock:
            entry = self._entry_for(uri, owner)
            if entry is None:
                return None
            textual = entry.mime_type.startswith("text/") or entry.mime_type == "application/json"
            data = entry.data
            kept: BinaryIO | None = None
            if data is None:
                path = self._files.path(uri)
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

    def read_part(self, uri: str, owner: str | None, index: int, bound: int | None,
                  *, named: str) -> dict[str, Any] | None:
        """Part ``index`` of ``uri`` for ``owner`` as a ``ReadResourceResult`` naming ``named`` (the part's URI as
        asked for), cut for one event of ``bound`` bytes (:func:`.kept_parts.cut_part`); None as :meth:`read`
        answers None. Only the part's bytes are read from a kept file; a text held in memory is encoded once, at its
        first part read (:meth:`_encoded`), not once a part.

        Raises:
            InvalidParams: (-32602) ``index`` out of range, naming the range.
            UnicodeDecodeError: a textual result whose data is not UTF-8.
        """
        with self._lock:
            entry = self._entry_for(uri, owner)
            if entry is None:
                return None
            data, path = entry.data, (self._files.path(uri) if entry.data is None else None)
        if data is not None:
            whole = memoryview(self._encoded(entry, data) if isinstance(data, str) else data)
            return cut_part(lambda at, count: whole[at:at + count].tobytes(), len(whole), entry.mime_type, index,
                            bound, uri=named, errors=KEPT_ERRORS)
        try:
            kept = open(path, "rb") if path is not None else None  # noqa: SIM115  (closed below)
        except OSError:
            return None
        if kept is None:
            return None
        with kept:
            def read_at(at: int, count: int) -> bytes:
                kept.seek(at)
                return kept.read(count)
            return cut_part(read_at, os.fstat(kept.fileno()).st_size, entry.mime_type, index, bound,
                            uri=named, errors=KEPT_ERRORS)

    def _encoded(self, entry: KeptEntry, text: str) -> bytes:
        """The UTF-8 of ``entry``'s ``text`` (held in memory) that its parts are cut from, made at its first part
        read only: then kept in the text's place when the entry reads as text (:meth:`read` decodes it to the same
        text; the memory held is then the size the store counts), else beside it (:meth:`read` answers the text)."""
        if entry.encoded is not None:
            return entry.encoded
        encoded = text.encode("utf-8", KEPT_ERRORS)
        with self._lock:
            if not is_textual(entry.mime_type):
                entry.encoded = encoded
            elif entry.data is text:
                entry.data = encoded
        return encoded

    def size_of(self, uri: str) -> tuple[int, str] | None:
        """The bytes and MIME type of ``uri`` while it is held, else None (not a permission)."""
        with self._lock:
            entry = self._index.get(uri)
            return None if entry is None else (entry.size, entry.mime_type)

    def holds(self, uri: str, owner: str | None, job: str | None = None) -> bool:
        """Whether ``uri`` still reads for ``owner`` (:meth:`read` would answer it): not expired, not dropped
        (by this process, or its file by another sharing the results folder), and ``owner``'s or anyone's; with
        ``job``, kept for that job (:meth:`kept_by`; an earlier version's keep names none)."""
        with self._lock:
            self._open()
            entry = self._index.known(uri)
            if (entry is None or entry.expires <= time.time() or entry.owner not in (None, owner)
                    or (job is not None and entry.job != job)):
                return False
            path = self._files.path(uri) if entry.data is None else None
        return path is None or os.path.exists(path)

    def kept_by(self, uri: str) -> KeptBy | None:
        """Who kept ``uri`` and for which job, while it is held (expired or not) or remembered as evicted
        (:meth:`evicted`); else None. Not a permission: :meth:`read` checks the owner it is given."""
        with self._lock:
            self._open()
            entry = self._index.known(uri)
            if entry is not None:
                return KeptBy(entry.owner, entry.job)
            found = self._evictions.of(uri, self._files.path(uri))
        return KeptBy(found.owner, found.job) if found is not None else None

    def shared(self, uri: str) -> bool:
        """Whether every process sharing the results folder reads ``uri`` (its file is in the folder; without a
        folder, this one process is all): False for an entry kept in this process's memory because the folder's
        lock was not had in time or its file could not be written, and for a URI not held."""
        with self._lock:
            entry = self._index.get(uri)
            return entry is not None and (entry.data is None or self._files.folder is None)

    def drop(self, uri: str) -> None:
        """Drop ``uri`` (its file too, for every process sharing the results folder): a copy kept in vain, as
        when another process's keep of the same data was stored first. Nothing for a URI not held. Its file
        is removed only holding the folder's lock: not had in time (logged), the file is left to expire.

        .. versionchanged:: 1.0
           A file is no longer removed without the folder's lock.
        """
        with self._shared() as shared, self._lock:
            self._open()
            entry = self._index.known(uri)
            if entry is not None and (shared or entry.data is not None):
                self._index.drop(uri)

    def evicted(self, uri: str, owner: str | None) -> str | None:
        """Why ``uri`` no longer reads when it was ``owner``'s and was dropped to make room (by this
        process, or another sharing the results folder: :mod:`.evictions`), else None."""
        with self._lock:
            found = self._evictions.find(uri, owner, self._files.path(uri))
        return found.reason(uri, self.max_bytes, self.max_bytes_per_owner) if found is not None else None

    def __len__(self) -> int:
        return len(self._index)
