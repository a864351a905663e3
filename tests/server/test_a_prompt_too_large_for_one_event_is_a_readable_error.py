"""review r30 F4, F6. A ``prompts/get`` whose answer went as one SSE event over the official ``mcp`` client's 1 MiB
was sent: over legacy SSE the client's SSE reader died with that event, and the whole session with it. Now it
answers -32603 naming its size and where it is answered whole (as a ``resources/read`` does), and the session goes
on; over Streamable HTTP with nothing sent before it the same prompt is answered whole. And a registered
resource's read refused so was recorded on the event bus as succeeded (``call_finished`` ok True) while the client
got -32603: now both the refused read and the refused prompt are recorded failed, naming the size. A real server,
the official client over legacy SSE and Streamable HTTP."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

SIZE = 2_000_000


def build(seen: list[tuple[str, str, bool, str | None]]) -> MCPServer:
    server = MCPServer("prompts")

    @server.prompt()
    def big() -> str:
        """A prompt embedding a 2 MB input deck."""
        return "x" * SIZE

    @server.prompt()
    def small() -> str:
        """Within one event."""
        return "s" * 1000

    @server.resource("data://big")
    def big_resource() -> str:
        """2 MB of text."""
        return "y" * SIZE

    server.events.subscribe(
        lambda event, data: seen.append((data["method"], data["name"], data["ok"], data.get("error"))),
        ["call_finished"])
    return server


def test_a_large_prompt_over_legacy_sse_is_an_error_the_session_outlives() -> None:
    seen: list[tuple[str, str, bool, str | None]] = []

    async def main(url: str) -> tuple[MCPError, Any]:
        with anyio.fail_after(60):
            async with mcp_client(url + "sse", transport="sse") as client:
                with pytest.raises(MCPError) as prompt:
                    await client.get_prompt("big")
                return prompt.value, await client.get_prompt("small")  # the session goes on

    with serve(build(seen)) as url:
        prompt, after = anyio.run(main, url)
    assert prompt.code == -32603
    assert prompt.message.startswith("prompts/get of 'big' answered 2000")
    assert "more than a client reads in one server-sent event (1048576 bytes, 1 MiB)" in prompt.message
    assert "get it over Streamable HTTP with nothing sent before the answer" in prompt.message
    assert prompt.data["prompt"] == "big"
    assert prompt.data["bytes"] > SIZE
    assert prompt.data["limit"] == 1 << 20
    assert after.messages[0].content.text == "s" * 1000
    assert seen == [("prompts/get", "big", False, prompt.message), ("prompts/get", "small", True, None)]


def test_a_read_refused_for_its_size_is_recorded_failed() -> None:
    seen: list[tuple[str, str, bool, str | None]] = []

    async def main(url: str) -> MCPError:
        with anyio.fail_after(60):
            async with mcp_client(url + "sse", transport="sse") as client:
                with pytest.raises(MCPError) as read:
                    await client.read_resource("data://big")
                return read.value

    with serve(build(seen)) as url:
        read = anyio.run(main, url)
    assert read.code == -32603
    assert seen == [("resources/read", "data://big", False, read.message)]


def test_the_same_prompt_as_json_is_answered_whole() -> None:
    async def main(url: str) -> Any:
        with anyio.fail_after(60):
            async with mcp_client(url + "mcp") as client:
                return await client.get_prompt("big")

    with serve(build([])) as url:
        result = anyio.run(main, url)
    assert result.messages[0].content.text == "x" * SIZE
