"""A ``meta`` a tool, resource or prompt returns (the result's own, or a content block's) holding a value JSON
cannot hold is that component's own error, naming the key and what to write instead (review r22 L1).

Only the keys of such a ``meta`` were checked where it was made; a value with no JSON form (an object of the
application's, a set, an int of over 4,300 digits) was found only when the answer was written: a bare
-32603, and a log line telling the author to report a bug of nanohubmcp. ``structured_content={"a": {1, 2}}``
was already a tool error. Now a tool's is an ``isError`` result, a resource's or prompt's its failure in its
own words; numpy values in a ``meta`` are written as numbers, as in a tool's other values.

A real server over HTTP, the official client; REST for the tool's answer too.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx2
import numpy as np
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer, PromptResult, ResourceResult, TextContent, ToolResult

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
ADVICE = "write it as a plain number, string, true/false, None, list, or dict with string keys"


class Odd:
    def __repr__(self) -> str:
        return "Odd()"


def build() -> MCPServer:
    server = MCPServer("meta-values", provenance=False)

    @server.tool()
    def result_meta() -> ToolResult:
        """An object in the result's meta (after a file name that is not UTF-8: sent as U+FFFD, not the error)."""
        return ToolResult(content="x", meta={"file": "r\udce9sultat", "x": Odd()})

    @server.tool()
    def block_meta() -> list[Any]:
        """A set in a block's meta."""
        return [TextContent("ok"), TextContent("x", meta={"y": {1, 2}})]

    @server.tool()
    def resource_block_meta() -> ToolResult:
        """A huge int in an embedded resource's meta."""
        return ToolResult(content=[{"type": "resource", "resource": {"uri": "data://r", "text": "t",
                                                                      "_meta": {"n": 10**5000}}}])

    @server.tool()
    def numpy_meta() -> ToolResult:
        """numpy numbers in the meta: written as numbers."""
        return ToolResult(content="x", meta={"n": np.int64(3), "v": [np.float32(0.5)]})

    @server.resource("data://meta")
    def resource_meta() -> ResourceResult:
        """An object in a resource's meta."""
        return ResourceResult("text", meta={"x": Odd()})

    @server.prompt()
    def prompt_meta() -> PromptResult:
        """An object in a prompt's meta."""
        return PromptResult("hello", meta={"x": Odd()})

    return server


async def test_each_component_answers_a_meta_json_cannot_hold_as_its_own_error(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, "nanohubmcp.server"), serve(build()) as url:
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("result_meta", {})
            assert result.is_error
            assert result.content[0].text == f"ToolResult meta cannot be sent: an Odd (Odd()) at meta.x has no JSON " \
                                             f"form; {ADVICE}"
            block = await client.call_tool("block_meta", {})
            assert block.is_error
            assert block.content[0].text.startswith("content[1] meta cannot be sent: a set ({1, 2}) at meta.y ")
            inner = await client.call_tool("resource_block_meta", {})
            assert inner.is_error
            assert inner.content[0].text.startswith("content[0] resource meta cannot be sent: an int of over 4,300 "
                                                    "digits at meta.n has no JSON form")
            numbers = await client.call_tool("numpy_meta", {})
            assert not numbers.is_error
            assert numbers.meta == {"n": 3, "v": [0.5]}

            with pytest.raises(MCPError) as read:
                await client.read_resource("data://meta")
            assert "ResourceResult meta cannot be sent: an Odd (Odd()) at meta.x" in read.value.error.message
            with pytest.raises(MCPError) as got:
                await client.get_prompt("prompt_meta")
            assert "PromptResult meta cannot be sent: an Odd (Odd()) at meta.x" in got.value.error.message
            assert not (await client.call_tool("numpy_meta", {})).is_error  # still serving

        rest = httpx2.post(url + "tools/result_meta", json={}, timeout=30)
        assert "ToolResult meta cannot be sent" in rest.text
    assert not [r for r in caplog.records if "cannot be written as JSON" in r.getMessage()]  # no -32603 left
