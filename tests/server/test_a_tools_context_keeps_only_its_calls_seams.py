"""A tool's ``ctx`` keeps the call's own seams (its asks, its progress, how results are shaped, the server's
name), never the server's core: a user's function cannot reach the registry, every session or the job store
through it. Review r42 (R42-1) found ``Context`` holding the whole core (``ctx._core``)."""

from __future__ import annotations

from typing import Any

import pytest

from nanohubmcp import Context, MCPServer
from nanohubmcp.server.core import ServerCore
from nanohubmcp.server.wire.request import RequestContext
from nanohubmcp.testing import MemoryClient

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def _held(start: object) -> list[tuple[str, object]]:
    """Every object reachable from ``start`` through instance attributes (``__dict__`` and ``__slots__``) and
    containers, with its path; the call's own request is not followed (it is the call's, not the server's)."""
    seen: set[int] = set()
    found: list[tuple[str, object]] = []
    todo: list[tuple[str, object]] = [("ctx", start)]
    while todo:
        path, value = todo.pop()
        if id(value) in seen or isinstance(value, (str, bytes, int, float, type)) or value is None:
            continue
        seen.add(id(value))
        found.append((path, value))
        if isinstance(value, RequestContext) and path != "ctx":
            continue
        items: list[tuple[str, Any]] = []
        if isinstance(value, dict):
            items = [(f"{path}[{k!r}]", v) for k, v in value.items()]
        elif isinstance(value, (list, tuple, set, frozenset)):
            items = [(f"{path}[]", v) for v in value]
        elif type(value).__module__.startswith("nanohubmcp."):
            attrs = dict(getattr(value, "__dict__", {}))
            for cls in type(value).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    if hasattr(value, slot):
                        attrs[slot] = getattr(value, slot)
            items = [(f"{path}.{k}", v) for k, v in attrs.items()]
        todo.extend(items)
    return found


async def test_nothing_a_context_holds_is_the_servers_core() -> None:
    server = MCPServer("seams", job_store="memory", provenance=False)
    seen: list[list[tuple[str, object]]] = []

    @server.tool()
    def look(ctx: Context) -> str:
        """Looks at what its context holds."""
        seen.append(_held(ctx))
        return "looked" if ctx.request_id is not None else "no id"

    async with MemoryClient(server) as client:
        result = await client.call_tool("look", {})
    assert result["content"][0]["text"] == "looked"
    cores = [path for path, value in seen[0] if isinstance(value, ServerCore)]
    assert cores == [], f"a tool's ctx reaches the server's core: {cores}"
