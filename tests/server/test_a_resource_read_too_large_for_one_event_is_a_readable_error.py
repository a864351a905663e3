"""A ``resources/read`` whose answer went as one SSE event over the official ``mcp`` client's 1 MiB was lost: the
client dropped the event ("Server-sent event exceeded the 1048576 byte limit") and the read failed without an
answer (the legacy SSE session closed). That is a read of a large result the server kept (its link), or of a large
resource, over legacy SSE; or over Streamable HTTP once a log message of the read went first (the answer the
last event of the POST's stream), or after the read's POST stream was closed early (the answer replayed on the
GET stream resuming it). Now such a read answers the JSON-RPC error -32603 naming its size, the client's 1 MiB
and where it reads whole, which the client reads; the same resource read as JSON (nothing sent before the
answer) still reads whole, and a resource within one event still reads over legacy SSE. A real server over
HTTP, the official client in both eras and over legacy SSE."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from client_logs import ask_for_logs
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(120)

SIZE = 3 << 20  # a 3 MiB text
TOKEN = "token-of-alice"


def build() -> MCPServer:
    server = MCPServer("big", auth=StaticTokenVerifier({TOKEN: "alice"}))

    @server.resource("data://big")
    def big() -> str:
        """3 MiB of text."""
        return "b" * SIZE

    @server.resource("data://small")
    def small() -> str:
        """500 KB of text: within one event."""
        return "s" * 500_000

    @server.resource("data://logged")
    def logged(ctx: Context) -> str:
        """Logs, then answers 3 MiB."""
        ctx.info("reading")
        return "b" * SIZE

    @server.resource("data://hung-up")
    def hung_up(ctx: Context) -> str:
        """Closes its POST stream (the client resumes with a GET), then answers 3 MiB."""
        ctx.close_stream()
        return "b" * SIZE

    @server.tool()
    def table(rows: int) -> dict[str, Any]:
        """``rows`` rows of 1,000 characters."""
        return {"rows": ["r" * 1000] * rows}

    return server


def client_of(url: str, era: str) -> Any:
    """The official client: a 2025-11-25 session over Streamable HTTP or legacy SSE, or the stateless
    ``mcp.Client`` (2026-07-28, asking for log messages at info)."""
    if era == "sse":
        return mcp_client(url + "sse", transport="sse", token=TOKEN)
    if era == "2025-11-25":
        return mcp_client(url + "mcp", token=TOKEN)
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
    return Client(streamable_http_client(url + "mcp", http_client=http), mode="2026-07-28", log_level="info")


async def read(client: Any, uri: str, era: str, *, logs: bool = False) -> Any:
    if logs and era != "2026-07-28":
        await ask_for_logs(client)
    return await client.read_resource(uri)


def refused(url: str, era: str, uri: str, *, logs: bool = False) -> Any:
    from mcp.shared.exceptions import MCPError

    async def main() -> Any:
        with anyio.fail_after(60):
            async with client_of(url, era) as client:
                with pytest.raises(MCPError) as caught:
                    await read(client, uri, era, logs=logs)
                return caught.value

    return anyio.run(main)


def read_whole(url: str, era: str, uri: str) -> str:
    async def main() -> str:
        with anyio.fail_after(60):
            async with client_of(url, era) as client:
                return str((await read(client, uri, era)).contents[0].text)

    return anyio.run(main)


def check(error: Any, uri: str, what: str) -> None:
    assert error.code == -32603, error
    message = error.message
    assert message.startswith(f"resources/read of {uri} ({what}) answered "), message
    size = int(message.split(" answered ")[1].split()[0])
    assert error.data == {"uri": uri, "bytes": size, "limit": 1 << 20}
    for said in ("(1048576 bytes, 1 MiB)", "Streamable HTTP", "as JSON whatever its size"):
        assert said in message, message


@pytest.mark.parametrize(("era", "uri", "logs"), [
    ("sse", "data://big", False),  # legacy SSE: every answer is an event
    ("2025-11-25", "data://logged", True),  # a log message went first: the answer is the stream's last event
    ("2026-07-28", "data://logged", True),
    ("2025-11-25", "data://hung-up", False),  # the POST stream closed early: the answer goes on the GET stream
])
def test_a_resource_too_large_for_one_event_is_an_error_naming_its_size(era: str, uri: str, logs: bool) -> None:
    with serve(build()) as url:
        error = refused(url, era, uri, logs=logs)
        assert read_whole(url, "2025-11-25", "data://big") == "b" * SIZE  # as JSON: whole
    check(error, uri, "a resource")
    assert SIZE < error.data["bytes"] < SIZE + 1000


def test_a_resource_within_one_event_reads_over_legacy_sse() -> None:
    with serve(build()) as url:
        assert read_whole(url, "sse", "data://small") == "s" * 500_000


def test_a_kept_result_too_large_for_one_event_is_an_error_and_reads_whole_as_json() -> None:
    async def linked(url: str) -> tuple[str, Any]:
        """A ~2 MB result's link (answered as an event: its data over 256 KiB kept), then its read over SSE."""
        from mcp.shared.exceptions import MCPError

        with anyio.fail_after(60):
            async with client_of(url, "sse") as client:
                result = await client.call_tool("table", {"rows": 2000})
                links = [block.uri for block in result.content if block.type == "resource_link"]
                assert links, result
                with pytest.raises(MCPError) as caught:
                    await client.read_resource(links[0])
                return str(links[0]), caught.value

    with serve(build()) as url:
        uri, error = anyio.run(linked, url)
        whole = read_whole(url, "2025-11-25", uri)  # the principal's, from another session: as JSON, whole
    check(error, uri, "a large result the server kept")
    assert 2_000_000 < error.data["bytes"] < 2_100_000
    assert json.loads(whole) == {"rows": ["r" * 1000] * 2000}
