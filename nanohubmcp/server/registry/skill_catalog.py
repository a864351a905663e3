"""The skills a server publishes (the 2026-07-28 era's ``skills/*`` methods read it).

A URI asked for (``skills/get``, ``resources/directory/read``) is compared as ``resources/read`` compares
the skill's files, registered resources (:func:`~nanohubmcp.protocol.uris.comparison_form`:
``SKILL://plot-%64ata/SKILL.md`` is ``skill://plot-data/SKILL.md``); its path keeps its case.

Apart from :mod:`.skills` (loading a skill folder: front matter, files, digests) so that a
server holds its catalog without importing the loader until a skill is added.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ...protocol.uris import comparison_form

if TYPE_CHECKING:
    from .skills import Skill


class SkillCatalog:
    """The skills a server publishes, by ``SKILL.md`` URI (thread-safe replace, lock-free reads)."""

    def __init__(self) -> None:
        self._skills: dict[str, Skill] = {}
        self._lock = threading.Lock()

    def put(self, skill: Skill) -> Skill | None:
        """Add or replace ``skill``; returns the one it replaced."""
        key = comparison_form(skill.uri)
        with self._lock:
            old = self._skills.get(key)
            self._skills = {**self._skills, key: skill}
        return old

    def get(self, uri: str) -> Skill | None:
        """The skill whose ``SKILL.md`` URI is ``uri`` (in any spelling of it: see the module)."""
        return self._skills.get(comparison_form(uri))

    def all(self) -> list[Skill]:
        """Every skill, in registration order."""
        return list(self._skills.values())

    def __len__(self) -> int:
        return len(self._skills)

    def directory(self, uri: str) -> list[dict[str, Any]] | None:
        """Children of a directory of any skill (``uri`` in any spelling of it: see the module); None when
        ``uri`` is no skill directory."""
        uri = comparison_form(uri)  # a skill's URIs are minted in that form (lower-case scheme, unreserved path)
        for skill in self._skills.values():
            listing = skill.directory(uri)
            if listing is not None:
                return listing
        return None
