"""trial19 F13: the return values the API summary's "Results" section did not list answer as it now says.

Raw ``bytes`` from a tool: an image or audio block when their first bytes say so, else one embedded
resource at ``nanohubmcp://result`` (a label, not a readable resource); over ``max_inline_bytes`` kept and
linked as a file in a list is (it was inline at any size); over REST the block named,
``{"result": "<content[0]>"}`` (trial37 V2: it was ``{"result": [that block]}``).
A number or bool from a prompt: one user text message in its JSON
spelling; a list: a message per item; another value: ``-32603`` naming its type.

This pins behaviour that was there and undocumented (no change of behaviour: it passes on main too).

Source: MCP 2025-11-25, Server § Tools § Tool Result (embedded resources), Server § Prompts.
"""

from __future__ import annotations

import base64
import datetime
import json
import urllib.request
from collections.abc import Callable

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer

RAW = b"\x00\x01hello\xff"
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
PNG_HEAD = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
BIG = bytes(range(256)) * 4096  # 1 MiB, four times max_inline_bytes below


def returning(value: object) -> Callable[[], object]:
    def fn() -> object:
        return value

    return fn


def build() -> MCPServer:
    server = MCPServer("returns", max_inline_bytes=256 * 1024)
    for name, data in [("raw", RAW), ("pdf", PDF), ("png", PNG_HEAD), ("big", BIG)]:
        server.tool(name=name, description=f"Return the {name} bytes.")(returning(data))
    for name, value in [("answer", 42), ("flag", True), ("several", [1.5, "two"]),
                        ("when", datetime.date(2026, 12, 3))]:
        server.prompt(name=name)(returning(value))
    return server


@pytest.mark.anyio
async def test_the_official_client_gets_what_the_summary_says() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            for tool, data, mime in [("raw", RAW, "application/octet-stream"), ("pdf", PDF, "application/pdf")]:
                result = await client.call_tool(tool, {})
                assert [block.type for block in result.content] == ["resource"], tool
                resource = result.content[0].resource
                assert (str(resource.uri), resource.mime_type) == ("nanohubmcp://result", mime)
                assert base64.b64decode(resource.blob) == data
            big = await client.call_tool("big", {})
            assert [block.type for block in big.content] == ["resource_link", "text"]
            assert (big.content[0].mime_type, big.content[0].size) == ("application/octet-stream", len(BIG))
            assert base64.b64decode((await client.read_resource(big.content[0].uri)).contents[0].blob) == BIG
            image = (await client.call_tool("png", {})).content[0]
            assert (image.type, image.mime_type, base64.b64decode(image.data)) == ("image", "image/png", PNG_HEAD)
            with pytest.raises(MCPError) as unreadable:
                await client.read_resource("nanohubmcp://result")
            assert unreadable.value.code == -32002

            for prompt, texts in [("answer", ["42"]), ("flag", ["true"]), ("several", ["1.5", "two"])]:
                got = await client.get_prompt(prompt, {})
                assert [(m.role, m.content.text) for m in got.messages] == [("user", t) for t in texts]
            with pytest.raises(MCPError) as refused:
                await client.get_prompt("when", {})
            assert refused.value.code == -32603
            assert "cannot use a date as MCP content" in refused.value.message


def test_rest_names_the_block() -> None:
    with serve(build()) as url:
        request = urllib.request.Request(url + "tools/raw", b"{}", {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            body = json.loads(response.read())
    assert body == {"result": "<content[0]>"}
