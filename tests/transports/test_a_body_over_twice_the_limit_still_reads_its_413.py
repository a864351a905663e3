"""A client that sends a body over twice ``max_request_bytes`` before it reads still reads the 413 (trial 66 F6).

The server answered such a body (by its ``Content-Length``) at once and closed the connection unread, under a
client still sending: the official ``mcp`` client (httpx: the whole body first, then the answer) met a bare
``ReadError``, never the 413 naming the limit. Now the rest of the body is read and dropped as nginx's lingering
close does (within the body's 30 s; nothing of it kept), the answer says ``Connection: close``, and the connection
closes once the body is in.

Source: RFC 9110 § 15.5.14 (413); RFC 9112 § 9.6 (tear-down: a server that closes reads on what the client sends,
so that its answer is not lost to a reset).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import socket
from collections.abc import Iterator

import pytest
from mcp.shared.exceptions import MCPError
from raw_http import read_reply
from support import mcp_client, serve

from nanohubmcp import MCPServer

LIMIT = 64 * 1024
"""``max_request_bytes`` of the server under test."""


def build() -> MCPServer:
    server = MCPServer("sizes")

    @server.tool()
    def size(text: str) -> int:
        """How long the text is."""
        return len(text)

    return server


@contextlib.contextmanager
def served() -> Iterator[int]:
    with serve(build(), token="", max_request_bytes=LIMIT) as url:
        yield int(url.rsplit(":", 1)[1].strip("/"))


def head(port: int, length: int) -> bytes:
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n").encode()


def rest_of(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


async def calls_with(url: str, size: int) -> str:
    async with mcp_client(url + "mcp") as session:
        with pytest.raises(MCPError) as refused:  # was: httpx.ReadError, ending the session
            await session.call_tool("size", {"text": "x" * size})
        message = refused.value.error.message
        result = await session.call_tool("size", {"text": "small"})  # the session goes on
        assert result.content[0].text == "5"  # type: ignore[union-attr]
        return message


@pytest.mark.parametrize("times", [40, 400])
def test_the_official_client_reads_the_413_of_a_body_over_twice_the_limit(times: int) -> None:
    with served() as port:
        message = asyncio.run(asyncio.wait_for(calls_with(f"http://127.0.0.1:{port}/", times * LIMIT), 60))
    assert f"the limit is {LIMIT} bytes (max_request_bytes)" in message


def test_a_raw_client_reads_the_413_then_the_connection_closes_and_the_server_serves_on() -> None:
    size = 64 << 20  # 1024 times the limit: read and dropped, not kept
    with served() as port:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux; the server runs here
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(head(port, size))
            piece = b" " * (1 << 20)
            for _ in range(size >> 20):  # was: a reset while sending
                sock.sendall(piece)
            status, headers, body = read_reply(sock)
            assert status == 413
            assert headers["connection"].lower() == "close"
            assert f"the limit is {LIMIT} bytes" in json.loads(body)["error"]["message"]
            assert rest_of(sock) == b""  # nothing more: the connection ends once the body is in
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert grown < 32 << 10, f"the server's peak memory grew by {grown} KiB"  # the body is 64 MiB
        with socket.create_connection(("127.0.0.1", port)) as sock:  # the server serves on
            message = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
            sock.sendall(head(port, len(message)) + message)
            status, _, body = read_reply(sock)
            assert (status, json.loads(body)["id"]) == (200, 1)
