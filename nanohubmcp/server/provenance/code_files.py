"""A tool's code as files: what a Rappture or Sim2L tool hands provenance as its code.

A Python tool's code is its function's source; a Rappture tool's is its ``tool.xml`` and the
program(s) its ``<command>`` runs, a Sim2L's the code cells of its notebook. Such a tool
registers the text :func:`bundle` makes (``source=`` of ``add_tool``, kept in
``Tool.extra[SOURCE]``): the record's code hash is the SHA-256 of that text — the same for the
same files whatever process or start reads them — and the RO-Crate export (:mod:`.crate`)
unpacks it with :func:`files_of` into one file per part under ``code/``.

The text is JSON with sorted keys: ``{"org.nanohub/code": 1, "kind": ..., "tool": ..., "files":
[{"name", "sha256", "size", "text"}]}``; ``name`` is the file's path relative to the tool's
directory, ``sha256``/``size`` of its bytes, ``text`` its UTF-8 text (None for a file that is not
text or is larger than :data:`MAX_FILE_BYTES`: it counts by its digest alone).
"""

from __future__ import annotations

import hashlib
import json
import os
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


def bundle(kind: str, tool: str, files: list[dict[str, Any]]) -> str:
    """The code text of a ``kind`` (``"rappture"``, ``"sim2l"``) tool named ``tool`` made of
    ``files`` (:func:`entry` dicts, the main file first)."""
    return json.dumps({MARK: 1, "kind": kind, "tool": tool, "files": files[:MAX_FILES]},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def files_of(source: str | None) -> dict[str, Any] | None:
    """The bundle ``source`` holds (``{"kind", "tool", "files"}``), or None for a function's source."""
    if not source or not source.startswith('{"files":'):  # sorted keys: a function's source never starts so
        return None
    try:
        found = json.loads(source)
    except ValueError:
        return None
    if not isinstance(found, dict) or found.get(MARK) != 1 or not isinstance(found.get("files"), list):
        return None
    return found
