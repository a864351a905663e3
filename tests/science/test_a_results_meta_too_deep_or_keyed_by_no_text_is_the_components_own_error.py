"""A result's ``meta`` nested deeper than the 128 levels a result is held to (``MAX_JSON_DEPTH``) is the
component's own error naming the key path and the limit, as a value with no JSON form is (trial 45, T45-16:
it was sent, and the official client failed to parse the answer, "recursion limit exceeded"). A ``meta`` key
that is not text is refused naming the key and its type (T45-17: "must be a dict with str keys, not dict").
Each refused ``meta`` is one WARNING line of the server's log, with no traceback of the server's own frames (T45-8).

A real server over HTTP, the official client.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer, PromptResult, ResourceResult, TextContent, ToolResult

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
TOO_DEEP = "at meta.x.a.a… nests more than 128 levels deep"


def nested(levels: int) -> dict[str, Any]:
    """``{"x": {"a": {"a": ... "end"}}}``: ``levels`` dicts in all."""
    value: Any = "end"
    for _ in range(levels - 1):
        value = {"a": value}
    return {"x": value}


def build() -> MCPServer:
    server = MCPServer("deep-meta", provenance=False)

    @server.tool()
    def deep_meta(levels: int) -> ToolResult:
        """The result's meta, ``levels`` deep."""
        return ToolResult("hi", meta=nested(levels))

    @server.tool()
    def deep_block_meta() -> list[Any]:
        """A block's meta, 200 deep."""
        return [TextContent("ok", meta=nested(200))]

    @server.tool()
    def int_key() -> ToolResult:
        """A meta keyed by an int."""
        return ToolResult("hi", meta={1: "x"})

    @server.tool()
    def set_meta() -> ToolResult:
        """A set in the meta."""
        return ToolResult("hi", meta={"x": {1, 2}})

    @server.resource("data://deep")
    def deep_resource() -> ResourceResult:
        return ResourceResult("text", meta=nested(200))

    @server.prompt()
    def deep_prompt() -> PromptResult:
        return PromptResult("hello", meta=nested(200))

    return server


async def test_a_meta_past_128_levels_is_the_components_own_error_naming_the_key_and_the_limit() -> None:
    with serve(build()) as url:
        async with mcp_client(url + "mcp") as client:
            refused = await client.call_tool("deep_meta", {"levels": 200})
            assert refused.is_error
            assert refused.content[0].text.startswith(f"ToolResult meta cannot be sent: the value {TOO_DEEP}")
            assert (await client.call_tool("deep_meta", {"levels": 128})).meta == nested(128)
            assert (await client.call_tool("deep_meta", {"levels": 129})).is_error

            block = await client.call_tool("deep_block_meta", {})
            assert block.is_error
            assert block.content[0].text.startswith(f"content[0] meta cannot be sent: the value {TOO_DEEP}")

            with pytest.raises(MCPError) as read:
                await client.read_resource("data://deep")
            assert f"ResourceResult meta cannot be sent: the value {TOO_DEEP}" in read.value.error.message
            with pytest.raises(MCPError) as got:
                await client.get_prompt("deep_prompt")
            assert f"PromptResult meta cannot be sent: the value {TOO_DEEP}" in got.value.error.message


async def test_a_meta_key_that_is_not_text_is_named_with_its_type() -> None:
    with serve(build()) as url:
        async with mcp_client(url + "mcp") as client:
            keyed = await client.call_tool("int_key", {})
            assert keyed.is_error
            assert "ToolResult meta keys must be str: the key 1 is of type int; write it as text, e.g. '1'" \
                in keyed.content[0].text


async def test_a_refused_meta_is_one_warning_line_without_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, "nanohubmcp"), serve(build()) as url:
        async with mcp_client(url + "mcp") as client:
            assert (await client.call_tool("set_meta", {})).is_error
    lines = [r for r in caplog.records if "meta cannot be sent" in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    assert lines[0].levelno == logging.WARNING
    assert lines[0].exc_info is None
