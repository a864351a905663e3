"""The 0.4.x data-losing cases, end to end: a real server on loopback and the official ``mcp`` client."""

from __future__ import annotations

import base64
import math
import struct
import zlib

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import Image, MCPServer


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00\xff"))
    return b"\x89PNG\r\n\x1a\n" + body + chunk(b"IEND", b"")


PNG = tiny_png()


def build() -> MCPServer:
    server = MCPServer("results-e2e")

    @server.tool()
    def add(a, b):  # type: ignore[no-untyped-def]
        # type: (float, float) -> float
        """Add two numbers together (the reference README's tool)."""
        return float(a) + float(b)

    @server.tool()
    def plot() -> Image:
        """Return a PNG."""
        return Image(data=PNG)

    @server.tool()
    def nothing() -> None:
        """Return nothing."""

    @server.tool()
    def stats() -> dict:
        """Return a dict holding NaN."""
        return {"mean": 1.5, "spread": math.nan}

    @server.tool()
    def broken() -> dict:
        """Return a dict JSON cannot hold."""
        return {"s": {1, 2}}

    @server.resource("data://png", mime_type="image/png")
    def png() -> bytes:
        return PNG

    @server.prompt()
    def two() -> list:
        """Two plain strings."""
        return ["hello t", "second"]

    return server


@pytest.mark.anyio
async def test_results_through_the_official_client() -> None:
    with serve(build()) as url, anyio.fail_after(20):
        async with mcp_client(url + "mcp") as client:
            added = await client.call_tool("add", {"a": 2, "b": 3})
            assert added.content[0].text == "5.0"

            image = await client.call_tool("plot", {})
            assert image.content[0].type == "image"
            assert image.content[0].mime_type == "image/png"
            assert base64.b64decode(image.content[0].data) == PNG

            empty = await client.call_tool("nothing", {})
            assert empty.content == []
            assert not empty.is_error

            stats = await client.call_tool("stats", {})
            assert stats.content[0].text == '{"mean":1.5,"spread":null}'
            assert stats.structured_content == {"mean": 1.5, "spread": None}

            broken = await client.call_tool("broken", {})
            assert broken.is_error
            assert "not JSON-serialisable" in broken.content[0].text
            assert "$['s'] is a set" in broken.content[0].text

            read = await client.read_resource("data://png")
            assert read.contents[0].mime_type == "image/png"
            assert base64.b64decode(read.contents[0].blob) == PNG

            prompt = await client.get_prompt("two", {})
            assert [(m.role, m.content.text) for m in prompt.messages] == [
                ("user", "hello t"),
                ("user", "second"),
            ]
