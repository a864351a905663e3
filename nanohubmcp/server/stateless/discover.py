"""``server/discover`` and the caching hints of 2026-07-28 results.

``server/discover`` answers the versions a stateless request may name (only 2026-07-28 and
later: the handshake versions are reached through ``initialize``), the server's capabilities
with the extensions it serves, and its instructions. Its identity travels in the result's
``_meta`` like every 2026 result's (the transport adds it).

Cacheable results (``server/discover``, the four lists, ``resources/read``) carry ``ttlMs`` and
``cacheScope``. A nanohubmcp server can change at any time (a notebook cell redefines a
tool), so ``ttlMs`` is 0: clients may keep a result but should re-fetch it when they need it
again; ``subscriptions/listen`` tells them when lists change. ``input_required`` results carry
no hints.

Source: MCP 2026-07-28, Server § Discovery; Server § Utilities § Caching (SEP-2549).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ...protocol import versions
from ..wire.request import RequestContext

if TYPE_CHECKING:
    from ..services import Published

H = TypeVar("H")
"""What a wrapped handler reads of its server (:mod:`.hosts`): the wrapper reads nothing of it."""

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
TTL_MS = 0
"""Freshness of cacheable results, in milliseconds (0: re-fetch when needed)."""
PUBLIC = "public"
PRIVATE = "private"


def capabilities(core: Published) -> dict[str, Any]:
    """Server capabilities of the stateless era, with ``extensions`` (tasks; skills when published)."""
    caps = core.capabilities(versions.MODERN_VERSIONS[0])
    extensions: dict[str, Any] = {TASKS_EXTENSION: {}}
    if len(core.skills):
        extensions[SKILLS_EXTENSION] = {"directoryRead": True}
    caps["extensions"] = extensions
    return caps


def with_cache_hints(result: dict[str, Any], scope: str) -> dict[str, Any]:
    """Add ``ttlMs``/``cacheScope`` to a complete result (an ``input_required`` one gets none)."""
    if result.get("resultType", "complete") == "complete":
        result.setdefault("ttlMs", TTL_MS)
        result.setdefault("cacheScope", scope)
    return result


def cacheable(handler: Callable[[H, RequestContext, dict[str, Any]], Awaitable[dict[str, Any]]],
              scope: str = PUBLIC) -> Callable[[H, RequestContext, dict[str, Any]], Awaitable[dict[str, Any]]]:
    """Wrap a handler so its complete results carry caching hints."""

    async def wrapped(core: H, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return with_cache_hints(await handler(core, request, params), scope)

    wrapped.__name__ = getattr(handler, "__name__", "cacheable")
    wrapped.__doc__ = handler.__doc__
    return wrapped


async def server_discover(core: Published, request: RequestContext,
                          params: dict[str, Any]) -> dict[str, Any]:
    """``server/discover`` → ``{supportedVersions, capabilities, instructions?, ttlMs, cacheScope}``."""
    result: dict[str, Any] = {
        "supportedVersions": list(versions.MODERN_VERSIONS),
        "capabilities": capabilities(core),
    }
    if core.instructions:
        result["instructions"] = core.instructions
    return with_cache_hints(result, PUBLIC)
