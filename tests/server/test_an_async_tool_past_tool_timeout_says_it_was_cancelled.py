"""An ``async def`` tool past ``tool_timeout`` is cancelled (``asyncio.wait_for`` waits for it to end), so its answer
says so; it said "it may still be running", true only of a sync function's thread (ttimeout's leftover)."""

from __future__ import annotations

import asyncio

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory


def test_an_async_tool_past_its_limit_is_answered_cancelled_and_was() -> None:
    server = MCPServer("slow", tool_timeout=0.2)
    ended: list[str] = []

    @server.tool()
    async def wait() -> str:
        """Waits longer than the limit."""
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            ended.append("cancelled")
            raise
        return "done"

    with in_memory(server) as client:
        result = client.call_tool("wait", {})
    assert result["isError"]
    text = result["content"][0]["text"]
    assert text.endswith("did not finish within 0.2 s (tool_timeout); it was cancelled"), text
    assert ended == ["cancelled"]
