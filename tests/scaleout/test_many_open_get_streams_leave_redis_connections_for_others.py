"""Many open ``GET /mcp`` streams in one process share one Redis connection for their reads.

With a Redis state URL each open GET stream waited for its messages in a blocking ``XREAD`` of
its own, holding one pooled connection for seconds at a time: about 100 open streams in one
process (redis-py's default pool) left none for anything else, so every other principal's call got
503 "shared state store is unreachable", and the log said Redis went down and came back, again and
again. Now a process reads every open stream with one ``XREAD`` on a connection of its own: here
alice holds three times as many GET streams as the process's pool has connections (one per session,
all legitimate; a pool of 20 through the state URL's ``max_connections``, so 60 streams, as 300 would
be for the default pool of 100), every one of them receives a notification, bob's calls are all
answered, and Redis sees a handful of connections.
"""

from __future__ import annotations

import logging
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
import redis
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(120)

POOL = 20
"""Connections of the server's pool (the state URL's ``max_connections``)."""
STREAMS = 3 * POOL
"""Open GET streams of one principal (three times the pool)."""
ALICE = {"Authorization": "Bearer a-token"}
BOB = {"Authorization": "Bearer b-token"}


def open_get(url: str, session: str) -> socket.socket:
    """A raw ``GET /mcp`` of ``session`` whose status line was read (200 expected)."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    sock.sendall(
        f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n"
        f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {wire.VERSION}\r\n"
        "Authorization: Bearer a-token\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, "the GET was answered with nothing"
        head += chunk
    assert head.startswith(b"HTTP/1.1 200"), head
    return sock


def read_until(sock: socket.socket, needle: bytes) -> bool:
    data = b""
    while needle not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return False
        data += chunk
    return True


def test_three_times_the_pools_get_streams_of_one_principal_leave_the_others_served(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp.state")
    server = MCPServer(
        "streams",
        state_url=f"{redis_server.url}?max_connections={POOL}",
        auth=StaticTokenVerifier({"a-token": "alice", "b-token": "bob"}),
    )

    @server.tool()
    def hello() -> str:
        """Say hello."""
        return "hello"

    admin = redis.Redis(port=redis_server.port, decode_responses=True)
    sockets: list[socket.socket] = []
    try:
        with serve(server) as base, ThreadPoolExecutor(16) as pool:
            url = base + "mcp"
            sessions = list(pool.map(lambda _: wire.initialize(url, extra=ALICE), range(STREAMS)))
            bob = wire.initialize(url, extra=BOB)
            sockets = list(pool.map(lambda s: open_get(url, s), sessions))
            # Every stream's reader has started once its session is a listener of unrelated messages.
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and admin.zcard("nanohubmcp:streams:listeners") < STREAMS:
                time.sleep(0.05)
            assert admin.zcard("nanohubmcp:streams:listeners") == STREAMS

            def call(rid: int) -> wire.httpx.Response:
                return wire.httpx.post(
                    url,
                    headers={**wire.headers(bob), "Accept": "application/json", **BOB},
                    json={"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "hello"}},
                    timeout=30,
                )

            answers = list(pool.map(call, range(32)))
            assert [a.status_code for a in answers] == [200] * 32, [a.text for a in answers if a.status_code != 200]

            @server.tool()
            def later() -> str:
                """A tool added while the streams are open: each of them hears of it."""
                return "later"

            heard = list(pool.map(lambda s: read_until(s, b"notifications/tools/list_changed"), sockets))
            assert heard == [True] * STREAMS
            clients = admin.info("clients")
            assert clients["blocked_clients"] <= 1, clients  # one blocking read for every stream
    finally:
        for sock in sockets:
            sock.close()
        admin.close()
    assert "unreachable" not in caplog.text
    assert "busy" not in caplog.text
