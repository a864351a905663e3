"""``server.call(name, args)``: a tool called from the program, through the server, as a client would.

- The answer is the CallToolResult the official client gets for the same call (text,
  structured content, images), and it shows in a notebook as a client shows it.
- Arguments the schema refuses give the same ``isError`` result a 2025-11-25 client gets; an
  unknown tool is the -32602 ProtocolError; a tool that raises is ``isError`` with its message.
- The call is seen by call observers (the notebook log / lab panel) like any other.
- Without a running server, and from the serving loop's own thread, it says what to do instead.

Source: MCP 2025-11-25, Server § Tools § Calling Tools / Tool Result. Issue 17.
"""

from __future__ import annotations

import asyncio
import base64

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import ConfigurationError, MCPServer, ProtocolError
from nanohubmcp.protocol.content import Image

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def build() -> MCPServer:
    server = MCPServer("calls")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def picture() -> Image:
        """A one-pixel PNG."""
        return Image(data=PNG, format="png")

    @server.tool()
    def broken() -> str:
        """Always fails."""
        raise RuntimeError("the simulation diverged")

    return server


def test_call_answers_what_the_official_client_gets() -> None:
    server = build()
    with serve(server) as url:
        mine = server.call("add", {"a": 2, "b": 3})
        image = server.call("picture")

        async def theirs() -> tuple[dict, dict]:
            async with mcp_client(url + "mcp") as client:
                one = await client.call_tool("add", {"a": 2, "b": 3})
                two = await client.call_tool("picture", {})
                return (one.model_dump(by_alias=True, exclude_none=True),
                        two.model_dump(by_alias=True, exclude_none=True))

        client_add, client_picture = anyio.run(theirs)
    assert mine.text == "5"
    assert mine["content"] == client_add["content"]
    assert mine.is_error is client_add.get("isError", False) is False
    assert image["content"] == client_picture["content"]
    bundle = image._repr_mimebundle_()
    assert bundle["image/png"] == base64.b64encode(PNG).decode()
    assert "<img src='data:image/png;base64," in bundle["text/html"]
    assert mine._repr_mimebundle_()["text/plain"] == "5"


def test_refused_arguments_unknown_tools_and_failures_read_as_a_client_sees_them() -> None:
    server = build()
    seen: list[tuple[str, object]] = []
    server.events.subscribe(lambda event, data: seen.append((event, data.get("name"))), ["call_finished"])
    with serve(server):
        refused = server.call("add", {"a": "two", "b": 3})
        failed = server.call("broken")
        with pytest.raises(ProtocolError) as unknown:
            server.call("nope")
    assert refused.is_error
    assert "a" in refused.text
    assert failed.is_error
    assert failed.text == "the simulation diverged"
    assert failed._repr_mimebundle_()["text/plain"].startswith("Tool error (isError: true):")
    assert unknown.value.code == -32602
    assert "Unknown tool: nope" in str(unknown.value)
    assert ("call_finished", "broken") in seen
    assert ("call_finished", "add") in seen


def test_without_a_running_server_or_on_its_own_loop_it_says_what_to_do() -> None:
    server = build()
    with pytest.raises(ConfigurationError, match=r"server.start\(\)"):
        server.call("add", {"a": 1, "b": 2})

    async def on_the_serving_loop() -> None:
        server.start(port=0, loop="current")
        try:
            with pytest.raises(ConfigurationError, match=r"await server\.call_async"):
                server.call("add", {"a": 1, "b": 2})
            assert (await server.call_async("add", {"a": 1, "b": 2})).text == "3"
        finally:
            server.stop()

    asyncio.run(on_the_serving_loop())


def test_the_callers_arguments_are_left_as_given() -> None:
    """Regression: a tool taking a Context got it added to the dict passed to ``server.call`` when
    its arguments needed no conversion (the Sim2L tools' ``**arguments: Any``)."""
    from typing import Any

    from nanohubmcp import Context

    server = MCPServer("calls-keep-arguments", job_store="memory")

    def count(ctx: Context, **items: Any) -> int:
        return len(items)

    server.add_tool(count, description="Count the items.", input_schema={"type": "object"})
    with serve(server):
        given = {"a": 1, "b": [2]}
        result = server.call("count", given)
        assert not result.is_error, result
        assert result.text == "2"
        assert given == {"a": 1, "b": [2]}
