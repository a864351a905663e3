"""A burst of ``GET /mcp`` stream opens on one process waits briefly for pooled Redis connections.

redis-py's default pool raises at once when all its connections are in use, so 200 stream opens
arriving together on one process (a reconnect burst after a worker died) got about 100 answers 200
and about 100 answers 503 "busy", though each open needs a connection for a few milliseconds. Now
a request that finds the pool full waits a short bounded time for a free connection: twice as many
opens as the pool has connections all open (a pool of 20 through the state URL's ``max_connections``,
so 40 opens, as 200 would be for the default pool of 100), nothing is logged as busy or as an outage,
and Redis sees no more connections than the pool.
"""

from __future__ import annotations

import asyncio
import logging
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
STREAMS = 2 * POOL
"""Stream opens at once (twice the pool)."""


async def open_all(url: str, sessions: list[str]) -> list[bytes]:
    """Open a raw ``GET /mcp`` of every session, send all requests together, and return each
    status line."""
    parts = urlsplit(url)
    pairs = [await asyncio.open_connection(parts.hostname, parts.port) for _ in sessions]
    for (_, writer), session in zip(pairs, sessions, strict=True):
        writer.write(
            f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n"
            f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {wire.VERSION}\r\n"
            "Authorization: Bearer a-token\r\n\r\n".encode()
        )
    try:
        return list(await asyncio.wait_for(asyncio.gather(*(r.readline() for r, _ in pairs)), 60))
    finally:
        for _, writer in pairs:
            writer.close()


def test_twice_the_pools_get_streams_opened_at_once_all_open(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp.state")
    server = MCPServer(
        "burst", state_url=f"{redis_server.url}?max_connections={POOL}", auth=StaticTokenVerifier({"a-token": "alice"})
    )

    @server.tool()
    def hello() -> str:
        """Say hello."""
        return "hello"

    admin = redis.Redis(port=redis_server.port)
    try:
        with serve(server) as base, ThreadPoolExecutor(16) as pool:
            url = base + "mcp"
            sessions = list(
                pool.map(lambda _: wire.initialize(url, extra={"Authorization": "Bearer a-token"}), range(STREAMS))
            )
            heads = asyncio.run(open_all(url, sessions))
            assert [h.split(b" ")[1] for h in heads] == [b"200"] * STREAMS, sorted(set(heads))
            # The pool stayed within its size, plus the pub/sub and the shared XREAD (and this admin client).
            assert admin.info("clients")["connected_clients"] <= POOL + 2 + 1
    finally:
        admin.close()
    assert "busy" not in caplog.text
    assert "unreachable" not in caplog.text
