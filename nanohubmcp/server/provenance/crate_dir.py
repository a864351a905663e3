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
written through it, perhaps over a file outside the directory; so does a directory that is itself a
link, before anything under it is read. The walk stops as soon as the refusal is decided.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ...errors import NanohubMCPError

__all__ = ["METADATA", "clear_earlier", "earlier_files"]

METADATA = "ro-crate-metadata.json"
NAMED = 5  # other files named in a refusal; the rest are counted
MOST_ENTRIES = 100_000
"""Files and folders a crate's directory may hold before it is refused unread (``--force`` on ``/usr``)."""


def earlier_files(out: Path, profile: str, *, force: bool) -> list[Path]:
    """The files of an earlier crate in ``out`` to remove before a new crate is written there
    (empty when ``out`` is missing or empty).

    The directory is walked only as far as it takes to refuse it: a directory holding a whole tree
    (``/usr``) is refused once :data:`NAMED` other files or links are found, not after reading all of it.

    Raises:
        NanohubMCPError: ``out`` is itself a symbolic link, holds files no earlier crate of this
            exporter lists (and not ``force``), a symbolic link (even with ``force``), more than
            :data:`MOST_ENTRIES` entries, or a folder that cannot be read; ``out`` cannot be looked at
            (a name over 255 bytes: ``cannot write the crate to OUT: ...``); the message names them and
            the ways out.
    """
    try:
        mode = os.lstat(out).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return []  # missing (made later), or under a file (refused when it is made)
    except OSError as exc:  # a name over 255 bytes, no permission to look
        raise NanohubMCPError(f"cannot write the crate to {out}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(mode):  # (its target's tree is no crate folder of the user's choosing)
        raise NanohubMCPError(
            f"{out} is a symbolic link (to {os.readlink(out)}): a crate is written into a real folder only; "
            "give the folder itself, or a new or empty directory"
        )
    if not stat.S_ISDIR(mode):
        return []  # not a directory (refused when it is made)
    listed = _listed(out / METADATA, profile)
    found = _Found(out, listed, force=force)
    _walk(out, found)
    found.refuse()
    return [out / path for path in sorted(found.listed_present)]


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


class _Found:
    """What a walk of ``out`` met, and whether it has seen enough to refuse the directory."""

    def __init__(self, out: Path, listed: set[str], *, force: bool) -> None:
        self.out = out
        self.listed = listed
        self.force = force
        self.links: list[str] = []
        self.others: list[str] = []
        self.listed_present: set[str] = set()
        self.entries = 0
        self.more = False  # the walk stopped before the end

    def add(self, path: str, *, link: bool) -> None:
        self.entries += 1
        if link:
            self.links.append(path)
        elif path in self.listed:
            self.listed_present.add(path)
        else:
            self.others.append(path)

    def enough(self) -> bool:
        """Whether the refusal is decided (and the walk may stop)."""
        return (len(self.links) > NAMED or (not self.force and len(self.others) > NAMED)
                or self.entries > MOST_ENTRIES)

    def refuse(self) -> None:
        if self.links:  # even with force: writing through a link could replace a file outside the crate
            raise NanohubMCPError(
                f"{self.out} holds symbolic links ({self._named(self.links)}): a crate is written into real folders "
                "only, as a file written through a link could replace one outside the crate; remove the links or "
                "give a new or empty directory"
            )
        if self.others and not self.force:
            which = "files the earlier crate there does not list" if self.listed else "other files"
            raise NanohubMCPError(
                f"{self.out} already holds {which} ({self._named(self.others)}): give a new or empty directory for "
                "the crate, or move them away (or --force / force=True to write the crate beside them, unlisted)"
            )
        if self.entries > MOST_ENTRIES:
            raise NanohubMCPError(
                f"{self.out} holds more than {MOST_ENTRIES:,} files and folders: no crate folder does; give a new "
                "or empty directory for the crate"
            )

    def _named(self, paths: list[str]) -> str:
        shown = sorted(paths)[:NAMED]
        rest = len(paths) - len(shown)
        if self.more:
            return ", ".join(shown) + " and more"
        return ", ".join(shown) + (f" and {rest} more" if rest else "")


def _walk(out: Path, found: _Found) -> None:
    """Add every file (and symbolic link, and empty folder) under ``out`` to ``found``, as a ``/``-separated
    relative path, until ``found`` has enough; an entry removed meanwhile is passed over.

    Raises:
        NanohubMCPError: a folder cannot be read (no permission).
    """
    pending = [out]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except FileNotFoundError:
            continue  # (removed while the walk went on)
        except OSError as exc:
            raise NanohubMCPError(f"cannot write the crate to {out}: {folder}: {exc.strerror or exc}") from None
        if not entries and folder != out:
            found.add(Path(folder).relative_to(out).as_posix() + "/", link=False)
        for entry in entries:
            try:
                is_link = entry.is_symlink()
                is_folder = not is_link and entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_folder:
                pending.append(Path(entry.path))
            else:
                found.add(Path(entry.path).relative_to(out).as_posix(), link=is_link)
            if found.enough():
                found.more = True
                return


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
