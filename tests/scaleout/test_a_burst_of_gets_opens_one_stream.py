"""A burst of ``GET /mcp`` on one session, with Redis state, opens one stream (trial14 F7).

With a shared store a GET waits on Redis (where the session's log ends) before it reads the
stream; the "already has a stream" check used to pass for every GET arriving in that wait, so a
burst opened dozens of streams, used up the Redis connection pool, and other principals' calls
got 503. Now the first GET claims the stream before it waits: the others get 409, and another
principal is served meanwhile.
"""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(90)

BURST = 150
"""GETs sent at once (trial14 saw ~95 streams of 300)."""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def status_line(sock: socket.socket) -> str:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\r\n", 1)[0].decode()


def test_a_burst_of_gets_on_one_session_opens_one_stream_and_others_are_served(redis_server: RedisServer) -> None:
    server = MCPServer(
        "burst", state_url=redis_server.url, auth=StaticTokenVerifier({"a-token": "alice", "b-token": "bob"})
    )

    @server.tool()
    def hello() -> str:
        """Say hello."""
        return "hello"

    with serve(server) as base:
        url = base + "mcp"
        alice, bob = wire.initialize(url, extra=bearer("a-token")), wire.initialize(url, extra=bearer("b-token"))
        parts = urlsplit(url)
        request = (
            f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n"
            f"Mcp-Session-Id: {alice}\r\nMCP-Protocol-Version: {wire.VERSION}\r\nAuthorization: Bearer a-token\r\n\r\n"
        ).encode()
        sockets = [socket.create_connection((parts.hostname, parts.port), timeout=30) for _ in range(BURST)]
        try:
            for sock in sockets:  # all written before any is answered: they reach the server together
                sock.sendall(request)
            body = {"name": "hello", "arguments": {}}
            with ThreadPoolExecutor(8) as pool:
                bobs = [
                    pool.submit(
                        wire.httpx.post,
                        url,
                        headers={**wire.headers(bob), "Accept": "application/json", **bearer("b-token")},
                        json={"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": body},
                        timeout=30,
                    )
                    for i in range(16)
                ]
                statuses = sorted(pool.map(status_line, sockets))
                answers = [future.result() for future in bobs]
        finally:
            for sock in sockets:
                sock.close()
    counts = {line: statuses.count(line) for line in set(statuses)}
    assert counts == {"HTTP/1.1 200 OK": 1, "HTTP/1.1 409 Conflict": BURST - 1}, counts
    assert [a.status_code for a in answers] == [200] * 16, [a.text for a in answers if a.status_code != 200]
    assert all(a.json()["result"]["content"][0]["text"] == "hello" for a in answers)
