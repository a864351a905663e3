"""The directory an RO-Crate is exported into: new, empty or an earlier crate of this exporter.

A crate lists every file it holds (its ``File`` entities), so a file the new crate does not write
must not stay beside it. Before a crate is written into a directory that holds anything:

- an earlier crate made here (its ``ro-crate-metadata.json`` reads as one: the root dataset conforms
  to the Process Run Crate profile and mentions the ``#action``) has exactly the files its metadata
  lists removed (and the folders they leave empty); nothing it does not list is ever deleted;
- any other file there (a user's notes, another tool's crate, a crate whose metadata cannot be
  read) refuses the export, naming the files, unless ``force``: then they stay, unlisted.

Files are found by walking the directory without following symbolic links, and only a file found
there whose path the earlier metadata names is removed: a listed ``../x`` or absolute path matches
nothing.
A symbolic link in the directory refuses the export, ``force`` or not: the crate's files would be
written through it, perhaps over a file outside the directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ...errors import NanohubMCPError

__all__ = ["METADATA", "clear_earlier", "earlier_files"]

METADATA = "ro-crate-metadata.json"
NAMED = 5  # other files named in a refusal; the rest are counted


def earlier_files(out: Path, profile: str, *, force: bool) -> list[Path]:
    """The files of an earlier crate in ``out`` to remove before a new crate is written there
    (empty when ``out`` is missing or empty).

    Raises:
        NanohubMCPError: ``out`` holds files no earlier crate of this exporter lists (and not
            ``force``), or a symbolic link (even with ``force``); the message names them and the ways out.
    """
    if not out.is_dir():
        return []  # missing (made later) or not a directory (refused when it is made)
    present = _present(out)
    if not present:
        return []
    links = sorted(path for path in present if (out / path).is_symlink())
    if links:  # even with force: writing through a link could replace a file outside the crate
        named = ", ".join(links[:NAMED]) + (f" and {len(links) - NAMED} more" if len(links) > NAMED else "")
        raise NanohubMCPError(
            f"{out} holds symbolic links ({named}): a crate is written into real folders only, as a file "
            "written through a link could replace one outside the crate; remove the links or give a new or "
            "empty directory"
        )
    listed = _listed(out / METADATA, profile)
    others = sorted(path for path in present if path not in listed)
    if others and not force:
        named = ", ".join(others[:NAMED]) + (f" and {len(others) - NAMED} more" if len(others) > NAMED else "")
        which = ("files the earlier crate there does not list" if listed
                 else "other files")
        raise NanohubMCPError(
            f"{out} already holds {which} ({named}): give a new or empty directory for the crate, "
            "or move them away (or --force / force=True to write the crate beside them, unlisted)"
        )
    return [out / path for path in sorted(present) if path in listed]


def clear_earlier(out: Path, files: list[Path]) -> None:
    """Remove ``files`` (from :func:`earlier_files`) and the folders under ``out`` they leave empty.

    Raises:
        NanohubMCPError: a file cannot be removed (no permission).
    """
    for path in files:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            raise NanohubMCPError(f"cannot write the crate to {out}: {path}: {exc.strerror or exc}") from None
        folder = path.parent
        while folder != out and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


def _present(out: Path) -> set[str]:
    """Every file (and symbolic link, and empty folder) under ``out``, as a ``/``-separated relative path."""
    found: set[str] = set()
    pending = [out]
    while pending:
        folder = pending.pop()
        entries = list(os.scandir(folder))
        if not entries and folder != out:
            found.add(Path(folder).relative_to(out).as_posix() + "/")
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            else:
                found.add(Path(entry.path).relative_to(out).as_posix())
    return found


def _listed(metadata: Path, profile: str) -> set[str]:
    """The files an earlier crate of this exporter lists (with its metadata file); empty when
    ``metadata`` is missing, unreadable, or not such a crate's."""
    try:
        graph = json.loads(metadata.read_text(encoding="utf-8")).get("@graph")
    except (OSError, ValueError, AttributeError):
        return set()
    if not isinstance(graph, list):
        return set()
    entities = {str(item.get("@id")): item for item in graph if isinstance(item, dict)}
    root = entities.get("./") or {}
    if profile not in _ids(root.get("conformsTo")) or "#action" not in _ids(root.get("mentions")):
        return set()
    listed = {METADATA}
    for identifier, item in entities.items():
        kinds = item.get("@type")
        if "File" in (kinds if isinstance(kinds, list) else [kinds]):
            listed.add(unquote(identifier))
    return listed


def _ids(value: Any) -> list[str]:
    """The ``@id`` of a JSON-LD reference or of each of a list of them."""
    items = value if isinstance(value, list) else [value]
    return [str(item.get("@id")) for item in items if isinstance(item, dict)]
