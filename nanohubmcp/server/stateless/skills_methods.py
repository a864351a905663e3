"""Publishing skills and the methods of the skills extension: ``skills/list``, ``skills/get``,
``resources/directory/read``.

:func:`publish` registers every file of a loaded skill as a resource (so ``resources/list`` and
``resources/read`` serve them in every protocol version; ``SKILL.md`` is named and described by
its front matter, typed ``text/markdown``) and records the skill in the server's catalog.
Publishing a skill again replaces it and drops files it no longer has.

Source: MCP skills extension ``io.modelcontextprotocol/skills`` (SEP-2640): skill entries
``{uri, frontmatter, resources: [{uri, digest, size}]}``, ``skills/get`` → ``{skill}``,
directory reads listing direct children (subdirectories as ``inode/directory``), -32602 for a
URI that names no skill or directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import InvalidParams
from ...schema.paths import echoed
from ..registry.resources import make_resource
from ..registry.skills import MARKDOWN_MIME, SKILL_FILE, Skill, SkillFile, load_skill
from ..wire.request import RequestContext
from .discover import PUBLIC, with_cache_hints

if TYPE_CHECKING:
    from ..services import Published


def _reader(file: SkillFile) -> Any:
    content = file.content()

    def read() -> str | bytes:
        return content

    return read


def publish(core: Published, folder: str | Path, *, prefix: str | None = None) -> Skill:
    """Load the skill in ``folder`` and serve it; returns the :class:`~..registry.skills.Skill`.

    Raises:
        RegistrationError: see :func:`~..registry.skills.load_skill`.
    """
    skill = load_skill(folder, prefix=prefix)
    registry = core.registry
    for rel, file in skill.files.items():
        if rel == SKILL_FILE:
            options = {"name": skill.name, "description": skill.frontmatter["description"],
                       "mime_type": MARKDOWN_MIME}
        else:
            options = {"name": f"{skill.name}/{rel}", "mime_type": file.mime_type}
        registry.add_resource(make_resource(_reader(file), skill.file_uri(rel), size=file.size, **options))
    old = core.skills.put(skill)
    if old is not None:
        for rel in old.files.keys() - skill.files.keys():
            registry.resources.remove(old.file_uri(rel))
    return skill


def _cursor(params: dict[str, Any], method: str) -> None:
    if params.get("cursor") is not None:
        raise InvalidParams(f"Invalid cursor: {method} answers in one page; omit 'cursor'")


def _uri(params: dict[str, Any], method: str) -> str:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise InvalidParams(f"{method} needs params.uri, a URI as a string")
    return uri


async def skills_list(core: Published, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``skills/list`` → ``{skills: [entry, ...], ttlMs, cacheScope}`` (one page)."""
    _cursor(params, "skills/list")
    return with_cache_hints({"skills": [s.entry() for s in core.skills.all()]}, PUBLIC)


async def skills_get(core: Published, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``skills/get`` ``{uri}`` → ``{skill: entry, ttlMs, cacheScope}``; -32602 for an unknown skill."""
    uri = _uri(params, "skills/get")
    skill = core.skills.get(uri)
    if skill is None:
        raise InvalidParams(f"Unknown skill: {echoed(uri)} (skills/get takes the SKILL.md URI from skills/list)",
                            {"uri": echoed(uri)})
    return with_cache_hints({"skill": skill.entry()}, PUBLIC)


async def directory_read(core: Published, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``resources/directory/read`` ``{uri}`` → ``{resources: [direct children]}``; -32602 if no directory."""
    uri = _uri(params, "resources/directory/read")
    _cursor(params, "resources/directory/read")
    listing = core.skills.directory(uri)
    if listing is None:
        raise InvalidParams(f"Not a directory: {echoed(uri)} (read a file with resources/read)", {"uri": echoed(uri)})
    return with_cache_hints({"resources": listing}, PUBLIC)
