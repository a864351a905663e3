"""A fresh-user trial (round 3, NIT): ``resources/read`` of ``DATA://%6Cab`` read the registered resource
``data://lab``, as RFC 3986 § 6.2.2 compares URIs (the scheme in any case, an escaped unreserved character
as itself, an escape's hex digits in any case), but ``NanoHubMCP://results/<id>`` or
``nanohubmcp://%72esults/<id>`` answered "Resource not found" for a large result the server kept, and so did
the same spellings of a provenance record's ``nanohubmcp://provenance/<id>``. The server's own URIs are now
compared in the one form registered ones are, through the real server and the official ``mcp`` client.

The id inside such a URI is compared exactly once the URI is in that form: ids are case-sensitive (only a
scheme has no case), so a case change of the id names nothing, and a URI in another spelling reaches only
what its owner could read in the minted one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.anyio

RESOURCE_NOT_FOUND = -32002
PROVENANCE = "io.nanohub/provenance"


def build() -> MCPServer:
    server = MCPServer("built-in-uris", max_inline_bytes=1000, job_store="memory")

    @server.tool()
    def many(n: int) -> list[float]:
        """n numbers, more than the server sends inline."""
        return [i / 7 for i in range(n)]

    @server.resource("data://lab")
    def lab() -> str:
        return "lab"

    return server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(build()) as base:
        yield base + "mcp"


def spellings(uri: str, family: str) -> list[str]:
    """Other spellings of the minted ``nanohubmcp://<family>/<id>``, each equal to it in RFC 3986's
    comparison form: the scheme's case, an escaped letter of the host, an escaped first character of
    the id (hex digits in lower and in upper case)."""
    head = f"nanohubmcp://{family}/"
    assert uri.startswith(head), uri
    ident = uri[len(head):]
    first = ord(ident[0])
    return [
        "NanoHubMCP" + uri[len("nanohubmcp"):],
        f"nanohubmcp://%{ord(family[0]):02X}{family[1:]}/{ident}",
        f"{head}%{first:02x}{ident[1:]}",
        f"{head}%{first:02X}{ident[1:]}",
        f"NANOHUBMCP://%{ord(family[0]):02x}{family[1:]}/%{first:02x}{ident[1:]}",
    ]


def case_changed(uri: str, family: str) -> str:
    head = f"nanohubmcp://{family}/"
    changed = head + uri[len(head):].swapcase()
    assert changed != uri
    return changed


async def refused(session: Any, uri: str) -> str:
    with pytest.raises(MCPError) as error:
        await session.read_resource(uri)
    assert error.value.error.code == RESOURCE_NOT_FOUND
    return error.value.error.message


async def test_a_registered_uri_reads_in_every_spelling(url: str) -> None:
    async with mcp_client(url) as mine:
        read = await mine.read_resource("DATA://%6cab")
        assert read.contents[0].text == "lab"
        assert str(read.contents[0].uri) == "DATA://%6cab"  # the spelling the client sent


async def test_a_kept_result_reads_in_every_spelling_of_its_link(url: str) -> None:
    async with mcp_client(url) as mine, mcp_client(url) as other:
        result = await mine.call_tool("many", {"n": 2000})
        link = next(str(block.uri) for block in result.content if block.type == "resource_link")
        minted = (await mine.read_resource(link)).contents[0]
        for spelling in spellings(link, "results"):
            read = (await mine.read_resource(spelling)).contents[0]
            assert read.text == minted.text, spelling
            assert str(read.uri) == spelling  # as a registered resource's read names it
            message = await refused(other, spelling)  # another session's result in any spelling: not found
            assert "evicted" not in message
        await refused(mine, case_changed(link, "results"))  # the id has case: another id, nothing


async def test_a_provenance_record_reads_in_every_spelling_of_its_uri(url: str) -> None:
    async with mcp_client(url) as mine, mcp_client(url) as other:
        result = await mine.call_tool("many", {"n": 3})
        uri = result.meta[PROVENANCE]
        minted = (await mine.read_resource(uri)).contents[0]
        for spelling in spellings(uri, "provenance"):
            read = (await mine.read_resource(spelling)).contents[0]
            assert read.text == minted.text, spelling
            assert str(read.uri) == spelling
            await refused(other, spelling)  # another session's record in any spelling: not found
        await refused(mine, case_changed(uri, "provenance"))
