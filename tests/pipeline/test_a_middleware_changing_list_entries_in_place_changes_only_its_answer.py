"""Review r33 F4: the application's middleware got the registry's CACHED ``tools/list`` entries themselves: an
in-place change (which docs/how-to/middleware.md allows) was kept in the cache, so it piled up on every list for
every client ("Add two numbers. [beta] [beta] [beta]" at the third list), and the byte sizes measured of the cache
went stale: after 12 lists of a middleware adding 100 kB to each of 3 descriptions, one "1 MiB-bounded" page was
3.6 MB, and over legacy SSE the official client's session died at the 4th list. Now a layer of the application's
gets copies of a registry list's entries (a server without middleware answers from the cache as before).
Real server and middleware; the in-memory client, and the official ``mcp`` client over legacy SSE."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer, Request
from nanohubmcp.server.middleware import CallNext
from nanohubmcp.testing import in_memory

pytestmark = pytest.mark.timeout(120)


def annotated_server(note: str, *names: str) -> MCPServer:
    server = MCPServer("mw", provenance=False)
    for name in names:
        def tool(a: int) -> int:
            return a

        tool.__name__, tool.__doc__ = name, f"Tool {name}."
        server.tool()(tool)

    @server.middleware
    async def annotate(request: Request, call_next: CallNext) -> dict[str, Any]:
        result = await call_next(request)
        if request.method in ("tools/list", "prompts/list"):
            for entry in result[request.method.split("/")[0]]:
                entry["description"] += note  # in place, as the how-to allows
        return result

    @server.prompt()
    def greet(who: str) -> str:
        """Say hello."""
        return f"Hello {who}"

    return server


def test_each_list_shows_the_middlewares_change_once_and_the_registry_keeps_its_entries() -> None:
    server = annotated_server(" [beta]", "add")
    with in_memory(server) as client:
        for _ in range(3):
            assert [tool["description"] for tool in client.list_tools()] == ["Tool add. [beta]"]
            prompts = client.request("prompts/list", {})["prompts"]
            assert [prompt["description"] for prompt in prompts] == ["Say hello. [beta]"]
    cached = server.core.registry.tools.page("2025-11-25", None, None).entries
    assert [tool["description"] for tool in cached] == ["Tool add."]


def test_a_middleware_growing_entries_never_grows_the_next_lists_over_legacy_sse() -> None:
    server = annotated_server(" note" * 20_000, "one", "two", "three")  # 100 kB more on each, each list

    async def lists(url: str) -> list[int]:
        async with mcp_client(url + "sse", transport="sse") as session:
            return [sum(len(tool.description or "") for tool in (await asyncio.wait_for(session.list_tools(), 30))
                        .tools) for _ in range(6)]

    with serve(server) as url:
        sizes = asyncio.run(lists(url))
    once = sum(len(f"Tool {name}.") + 100_000 for name in ("one", "two", "three"))
    assert sizes == [once] * 6, sizes  # one note on each description at every list
