"""Bytes a tool returns are ``audio/mpeg`` only when they start with an MPEG audio frame header
(trial35 Y11): ``b"\\xff\\xfe"`` (the UTF-16 byte order mark: two bytes with the sync bits) was sent as
an audio block, ``audio/mpeg``; arbitrary bytes are an embedded ``application/octet-stream`` blob, as
docs/api/summary.md says. Through the official client over Streamable HTTP."""

from __future__ import annotations

import base64
from typing import Any

import anyio
from support import mcp_client, serve

from nanohubmcp import MCPServer

MP3_FRAME = b"\xff\xfb\x90\x64" + bytes(413)  # MPEG-1 Layer III, 128 kbit/s, 44.1 kHz
UTF16_TEXT = "\ufeffhi".encode("utf-16-le")  # FF FE 68 00 69 00: an MPEG-1 Layer I header's first bytes


def bytes_server() -> MCPServer:
    server = MCPServer("bytes")

    @server.tool()
    def blob(which: str) -> bytes:
        """Some bytes."""
        return {"bom": b"\xff\xfe", "utf16": UTF16_TEXT, "mp3": MP3_FRAME}[which]

    return server


def test_only_a_whole_frame_header_is_audio() -> None:
    async def main(url: str) -> dict[str, Any]:
        with anyio.fail_after(30):
            async with mcp_client(url + "mcp") as client:
                return {which: await client.call_tool("blob", {"which": which}) for which in ("bom", "utf16", "mp3")}

    with serve(bytes_server()) as url:
        results = anyio.run(main, url)
    for which, data in (("bom", b"\xff\xfe"), ("utf16", UTF16_TEXT)):
        block = results[which].content[0]
        assert block.type == "resource", (which, block)
        assert block.resource.mime_type == "application/octet-stream"
        assert base64.b64decode(block.resource.blob) == data
    audio = results["mp3"].content[0]
    assert (audio.type, audio.mime_type) == ("audio", "audio/mpeg")
