"""A tool's code as files: what a Rappture or Sim2L tool hands provenance as its code.

A Python tool's code is its function's source; a Rappture tool's is its ``tool.xml`` and the
program(s) its ``<command>`` runs, a Sim2L's the code cells of its notebook. Such a tool
registers the text :func:`bundle` makes (``source=`` of ``add_tool``, kept in
``Tool.extra[SOURCE]``): the record's code hash is the SHA-256 of that text — the same for the
same files whatever process or start reads them — and the RO-Crate export (:mod:`.crate`)
unpacks it with :func:`files_of` into one file per part under ``code/``.

The files may be edited while the server runs, and a call then runs the edited program: such a tool
keeps a :class:`WatchedCode` (``Tool.extra[WATCHED]``), which reads the files again when a ``stat``
says one changed, so the result cache's key, the provenance record and the tool's own stored runs
name the code as it is now, not as it was at registration.

The text is JSON with sorted keys: ``{"org.nanohub/code": 1, "kind": ..., "files":
[{"name", "sha256", "size", "text"}]}``; ``name`` is the file's path relative to the tool's
directory, ``sha256``/``size`` of its bytes, ``text`` its UTF-8 text (None for a file that is not
text or is larger than :data:`MAX_FILE_BYTES`: it counts by its digest alone).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

MARK = "org.nanohub/code"
MAX_FILE_BYTES = 1024 * 1024
"""A file larger than this counts by its digest, without its text."""
MAX_FILES = 16
"""Files of one tool at most (the first ones given)."""


def entry(name: str, data: bytes) -> dict[str, Any]:
    """One file of a bundle: ``name`` (relative path), the SHA-256 and size of ``data``, its text."""
    text: str | None = None
    if len(data) <= MAX_FILE_BYTES and b"\0" not in data:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
    return {"name": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "text": text}


def read_entry(path: str | os.PathLike[str], name: str) -> dict[str, Any] | None:
    """:func:`entry` of the file at ``path`` (None when it cannot be read)."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:  # hash the rest without keeping it
                digest = hashlib.sha256(data)
                size = len(data)
                for chunk in iter(lambda: stream.read(1 << 20), b""):
                    digest.update(chunk)
                    size += len(chunk)
                return {"name": name, "sha256": digest.hexdigest(), "size": size, "text": None}
    except OSError:
        return None
    return entry(name, data)


def bundle(kind: str, files: list[dict[str, Any]]) -> str:
    """The code text of a ``kind`` (``"rappture"``, ``"sim2l"``) tool made of ``files`` (:func:`entry`
    dicts, the main file first). The name the tool is served under is not in it: the same files are
    the same code whatever the name (the result cache keys on the name apart).

    .. versionchanged:: 1.0
       No longer holds the tool's name (a bundle that does still reads with :func:`files_of`)."""
    return json.dumps({MARK: 1, "kind": kind, "files": files[:MAX_FILES]},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def files_of(source: str | None) -> dict[str, Any] | None:
    """The bundle ``source`` holds (``{"kind", "files"}``; an earlier one also ``"tool"``), or None for a
    function's source."""
    if not source or not source.startswith('{"files":'):  # sorted keys: a function's source never starts so
        return None
    try:
        found = json.loads(source)
    except ValueError:
        return None
    if not isinstance(found, dict) or found.get(MARK) != 1 or not isinstance(found.get("files"), list):
        return None
    return found


WATCHED = "provenance_watched_code"
"""``Tool.extra`` key: the :class:`WatchedCode` of a tool whose code is files (it wins over the
``source=`` text: the code hash follows the files as they are now)."""
RACY_NS = 2_000_000_000
"""A file changed this recently (nanoseconds) is read again at the next look: an edit within the
file system's timestamp resolution of the last read may leave its stat as it was."""
VERSIONS = 16
"""Code versions a :class:`WatchedCode` remembers (a record made after a later edit names the one that ran)."""


class Version:
    """One reading of a tool's files: its code text (:func:`bundle`), the hash records and cache
    keys name (``"sha256:<hex>"`` of the text), the paths read, their stats then, and what the
    tool's reader adds (``detail``: a Sim2L's notebook digest)."""

    __slots__ = ("detail", "hash", "paths", "racy", "source", "stamps")

    def __init__(self, source: str, paths: list[str], detail: Any, stamps: tuple[Any, ...], racy: bool) -> None:
        self.source = source
        self.hash = "sha256:" + hashlib.sha256(source.encode()).hexdigest()
        self.paths = paths
        self.detail = detail
        self.stamps = stamps
        self.racy = racy


Reader = Callable[[], "tuple[str, list[str], Any]"]
"""Reads a tool's files: ``(code text, the paths it read, detail)``."""


def _stamp(path: str) -> tuple[int, int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev, st.st_ctime_ns


class WatchedCode:
    """A file-backed tool's code, read again when a file it was read from changed.

    :meth:`current` stats each file (its mtime, size, inode, device and ctime) and compares them with
    the last reading's; only a change — or a file changed within :data:`RACY_NS` of that reading,
    whose edit a coarse timestamp could hide — reads the files again. So the hash a call is cached
    and recorded under is that of the files it runs, at the cost of a ``stat`` per file and call.
    """

    def __init__(self, read: Reader) -> None:
        self._read = read
        self._lock = threading.Lock()
        self._versions: OrderedDict[str, Version] = OrderedDict()
        self._now = self._load()

    def _load(self) -> Version:
        source, paths, detail = self._read()
        stamps = tuple(_stamp(path) for path in paths)
        now = time.time_ns()
        racy = any(stamp is not None and now - max(stamp[0], stamp[4]) < RACY_NS for stamp in stamps)
        version = Version(source, paths, detail, stamps, racy)
        self._versions[version.hash] = version
        self._versions.move_to_end(version.hash)
        while len(self._versions) > VERSIONS:
            self._versions.popitem(last=False)
        return version

    def current(self) -> Version:
        """The code as the files hold it now (read again only when a stat says they changed)."""
        known = self._now
        if not known.racy and tuple(_stamp(path) for path in known.paths) == known.stamps:
            return known
        with self._lock:
            known = self._now
            if known.racy or tuple(_stamp(path) for path in known.paths) != known.stamps:
                self._now = known = self._load()
            return known

    def version(self, code_hash: str | None) -> Version:
        """The version of hash ``code_hash`` when still remembered, else the current one."""
        if code_hash is not None:
            with self._lock:
                found = self._versions.get(code_hash)
            if found is not None:
                return found
        return self.current()
