"""Issue 13 § 6 and "Also fix" cases on the HTTP routes.

- A client too slow to read its stream is disconnected once it leaves more than
  ``WRITE_BUFFER_BYTES`` unread (a legacy SSE client that never read grew the server from 88 to
  249 MB); a Streamable HTTP session keeps its state for the client to resume.
- The legacy SSE ``endpoint`` resolves to the POST route behind a prefix proxy the server was
  not told about (a reference relative to the stream's URL).
- ``GET /mcp`` without a session is 405 with ``Allow`` (a 400 makes clients retry for ever).
- A non-JSON ``Content-Type`` on the legacy messages endpoint is 415.

Source: MCP 2024-11-05, Transports § HTTP with SSE; MCP 2025-11-25, Transports § Streamable HTTP
(Listening for messages; Resumability); RFC 3986 § 5.2; RFC 9110 § 15.5.6, § 15.5.16.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from pathlib import Path

import pytest
from proxy.nginx_weber import Nginx, WeberRoute, find_nginx, free_port
from streams.stream_wire import Wire
from support import mcp_client, serve, wait_until

from nanohubmcp import Context, MCPServer
from nanohubmcp.transports import sse_writer


def build() -> MCPServer:
    server = MCPServer("streams", max_inline_bytes=None)  # big text stays inline: slow readers are tested

    # An output schema: its structured content is promised, so it stays inline as an SSE event too (without one,
    # an answer going as an event links data over 256 KiB: trial53 F4), up to the official client's 1 MiB an event.
    @server.tool(output_schema={"type": "object", "properties": {"x": {"type": "string"}}})
    def big(size: int) -> dict[str, str]:
        """A string of ``size`` x's."""
        return {"x": "x" * size}

    @server.tool()
    def chatty(count: int, size: int, ctx: Context) -> str:
        """Log ``count`` messages of ``size`` characters, then answer."""
        for _ in range(count):
            ctx.info("y" * size)
        return "done"

    return server


def slow_socket(port: int) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a client that reads nothing
    sock.connect(("127.0.0.1", port))
    return sock


def read_until(sock: socket.socket, marker: bytes, timeout: float = 10.0) -> bytes:
    """Read until ``marker`` has arrived after the response head."""
    sock.settimeout(timeout)
    data = b""
    while marker not in data.partition(b"\r\n\r\n")[2]:
        chunk = sock.recv(4096)
        assert chunk, data
        data += chunk
    return data


def closed_by_server(sock: socket.socket, timeout: float = 20.0) -> bool:
    """Drain what the server sent; True once it closed the connection."""
    sock.settimeout(timeout)
    try:
        while sock.recv(1 << 20):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def test_a_legacy_sse_client_that_never_reads_is_disconnected_and_its_session_ends(monkeypatch) -> None:
    monkeypatch.setattr(sse_writer, "WRITE_BUFFER_BYTES", 2 << 20)
    server = build()
    with serve(server) as url:
        port = server.port
        wire = Wire(url)
        sock = slow_socket(port)
        sock.sendall(b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        found = re.search(rb"session_id=([\w-]+)\n", read_until(sock, b"\n\n"))
        assert found is not None
        session_id = found.group(1).decode()
        assert server.core.sessions.get(session_id) is not None
        for i in range(12):  # 12 replies of 1 MB (the x's twice, within one event's 1 MiB): far more than the 2 MB a
            # stream may hold unread
            reply = wire.legacy_post(
                f"/messages/?session_id={session_id}",
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": "big", "arguments": {"size": 500_000}},
                },
            )
            if reply.status == 404:
                break  # the session already ended
        wait_until(lambda: server.core.sessions.get(session_id) is None, "the session is gone", 20)
        assert closed_by_server(sock)
        sock.close()


def test_a_streamable_http_client_that_stops_reading_is_disconnected_and_its_session_lives_on(monkeypatch) -> None:
    monkeypatch.setattr(sse_writer, "WRITE_BUFFER_BYTES", 2 << 20)
    server = build()
    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize(log_level="info")
        sock = slow_socket(server.port)
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {
                    "name": "chatty",
                    "arguments": {"count": 200, "size": 1 << 16},  # (a longer message is cut to this: trial53 F4)
                    "_meta": {"progressToken": 1},
                },
            }
        ).encode()
        sock.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"
            + f"Mcp-Session-Id: {session}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        assert closed_by_server(sock)
        sock.close()
        # The session is still there for the client to come back to.
        assert wire.request("ping", {}, session)["result"] == {}


def test_the_legacy_endpoint_resolves_behind_a_prefix_proxy_the_server_was_not_told_about(tmp_path: Path) -> None:
    executable = find_nginx()
    if executable is None:
        pytest.skip("nginx is not installed (scripts/install-test-system-deps)")
    server = build()
    with serve(server):
        prefix = "/somewhere/unknown/"
        nginx = Nginx(executable, tmp_path, WeberRoute(prefix, server.port, strip=True), free_port()).start()
        try:

            async def call() -> str:
                async with mcp_client(nginx.public_url + "sse", transport="sse") as client:
                    return str((await client.call_tool("big", {"size": 3})).structured_content["x"])

            assert asyncio.run(asyncio.wait_for(call(), 30)) == "xxx"
        finally:
            nginx.stop()


def test_get_mcp_without_a_session_is_405_with_allow() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        reply = wire.send("GET", "/mcp", None, {"Accept": "text/event-stream"})
        assert reply.status == 405
        assert reply.headers.get("Allow") == "POST, DELETE"
        assert "Mcp-Session-Id" in reply.json["error"]["message"]


def test_a_non_json_body_on_the_legacy_messages_endpoint_is_415() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        events, endpoint = wire.legacy()
        try:
            session_id = endpoint.split("session_id=", 1)[1]
            reply = wire.send("POST", f"/messages/?session_id={session_id}", b"ping", {"Content-Type": "text/plain"})
            assert reply.status == 415
            assert "application/json" in reply.json["error"]["message"]
        finally:
            events.close()
