"""Over legacy SSE (every answer one event, at most ``max_event_bytes``, 1 MiB) a result over 256 KiB is linked, and its
note said "read it with resources/read to get all of it"; but that read was refused (its answer over one event), and
no read of a part existed: the session could never get the data. Now a kept result reads in parts through the
template ``nanohubmcp://results/{id}{?part}`` (listed by ``resources/templates/list``), each part one event; the
link's note and the whole read's refusal name how many parts and the first's URI. A text reads as text parts cut on
characters, bytes as base64 of byte ranges; a part out of range is -32602 naming the range; another principal's
result stays not found. A real server, the official ``mcp`` client over legacy SSE."""

from __future__ import annotations

import base64
import os
import re
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(120)

TEXT = ("abcdé€😀\n\"" * 300_000)[:3_000_000]  # 3 MB of characters of 1 to 4 UTF-8 bytes, escaped ones too
BLOB = os.urandom(3_000_000)
TOKENS = {"token-of-alice": "alice", "token-of-bob": "bob"}


def build() -> MCPServer:
    server = MCPServer("big", auth=StaticTokenVerifier(TOKENS))

    @server.tool()
    def text() -> str:
        """3 MB of text."""
        return TEXT

    @server.tool()
    def blob() -> bytes:
        """3 MB of bytes."""
        return BLOB

    return server


def sse(url: str, token: str = "token-of-alice") -> Any:
    return mcp_client(url + "sse", transport="sse", token=token)


async def linked(client: Any, tool: str) -> tuple[str, str]:
    """The link of ``tool``'s result and the note beside it."""
    result = await client.call_tool(tool, {})
    links = [block.uri for block in result.content if block.type == "resource_link"]
    notes = [block.text for block in result.content if block.type == "text" and "resources/read" in block.text]
    assert links, result
    assert notes, result
    return str(links[0]), notes[0]


def named_parts(said: str, uri: str) -> int:
    """The number of parts ``said`` names for ``uri``, checking it names the first's URI."""
    found = re.search(r"in (\d+) parts, (\S+) to \?part=(\d+)", said)
    assert found, said
    assert found.group(2) == f"{uri}?part=0", said
    assert int(found.group(3)) == int(found.group(1)) - 1
    return int(found.group(1))


async def read_parts(client: Any, uri: str, count: int) -> list[Any]:
    return [(await client.read_resource(f"{uri}?part={i}")).contents[0] for i in range(count)]


def test_a_3_mb_text_result_reads_whole_in_parts_over_legacy_sse() -> None:
    async def main(url: str) -> tuple[str, str, list[Any], Any]:
        from mcp.shared.exceptions import MCPError

        with anyio.fail_after(90):
            async with sse(url) as client:
                uri, note = await linked(client, "text")
                await client.read_resource(f"{uri}?part=0")  # (before: not found; the whole read was refused)
                count = named_parts(note, uri)
                with pytest.raises(MCPError) as whole:
                    await client.read_resource(uri)
                return uri, note, await read_parts(client, uri, count), whole.value

    with serve(build()) as url:
        uri, note, parts, whole = anyio.run(main, url)
    from nanohubmcp.server.results.kept_parts import part_count

    size = len(TEXT.encode())
    assert named_parts(note, uri) == len(parts) == part_count(size, 1 << 20, True) > 1
    assert "".join(part.text for part in parts) == TEXT
    assert all(part.mime_type == "text/plain" for part in parts)
    assert whole.code == -32603
    assert named_parts(whole.message, uri) == len(parts)


def test_a_3_mb_bytes_result_reads_in_parts_of_base64() -> None:
    async def main(url: str) -> tuple[str, list[Any]]:
        with anyio.fail_after(90):
            async with sse(url) as client:
                uri, note = await linked(client, "blob")
                return uri, await read_parts(client, uri, named_parts(note, uri))

    with serve(build()) as url:
        _, parts = anyio.run(main, url)
    from nanohubmcp.server.results.kept_parts import part_count

    assert len(parts) == part_count(len(BLOB), 1 << 20, False)
    assert b"".join(base64.b64decode(part.blob) for part in parts) == BLOB


def test_a_part_out_of_range_or_of_another_principal_is_refused_and_the_template_is_listed() -> None:
    async def main(url: str) -> tuple[Any, Any, Any, list[str]]:
        from mcp.shared.exceptions import MCPError

        with anyio.fail_after(90):
            async with sse(url) as client:
                uri, note = await linked(client, "text")
                count = named_parts(note, uri)
                with pytest.raises(MCPError) as beyond:
                    await client.read_resource(f"{uri}?part={count}")
                with pytest.raises(MCPError) as odd:
                    await client.read_resource(f"{uri}?part=-1")
                templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
            async with sse(url, "token-of-bob") as other:
                with pytest.raises(MCPError) as theirs:
                    await other.read_resource(f"{uri}?part=0")
        return beyond.value, odd.value, theirs.value, templates

    with serve(build()) as url:
        beyond, odd, theirs, templates = anyio.run(main, url)
    assert beyond.code == -32602
    count = beyond.data["parts"]
    assert f"it reads in {count} parts, 0 to {count - 1}" in beyond.message, beyond.message
    assert odd.code == -32602
    assert "?part=N" in odd.message, odd.message
    assert theirs.code == -32002, theirs
    assert templates == ["nanohubmcp://results/{id}{?part}"]


def test_a_part_never_ends_inside_a_character_or_a_surrogate_pair() -> None:
    from nanohubmcp.server.results.kept_parts import _boundary

    pair = "\ud83d\ude00".encode("utf-8", "surrogatepass")  # a pair's two halves, as the store keeps them
    data = b"ab" + "€".encode() + pair + b"z"

    def read_at(at: int, count: int) -> bytes:
        return data[at:at + count]

    starts = {at: _boundary(read_at, len(data), at) for at in range(len(data) + 1)}
    assert starts[3] == starts[4] == 5  # inside the euro sign: after it
    assert starts[5] == 5  # before the pair
    assert starts[6] == starts[8] == 11  # inside its first half, or between its halves: after both
    assert starts[len(data)] == len(data)
