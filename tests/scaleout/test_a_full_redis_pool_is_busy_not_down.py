"""A process whose Redis connections are all in use answers "busy", not "the store is down".

redis-py raises ``MaxConnectionsError`` (a ``ConnectionError``) when its pool is full; the store's
guard took it for Redis being unreachable: 503 "shared state store is unreachable", and the log
said the store went down and came back, over and over, with Redis up all along. Now it is its own
case: 503 with ``Retry-After`` saying the server is busy, nothing marked down, nothing logged as
an outage. Here the pool holds 2 connections (``?max_connections=2``) and Redis is paused
(``CLIENT PAUSE``) while calls arrive, longer than a call waits for a connection to be given back
(``POOL_WAIT_SECONDS``), so the calls that find no free connection get it.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.state.redis_pool import POOL_WAIT_SECONDS

pytestmark = pytest.mark.timeout(60)

CALLS = 8
PAUSE_MS = int((POOL_WAIT_SECONDS + 2.5) * 1000)
"""Longer than a call waits for a pooled connection: the waits run out while Redis is paused."""


def test_a_full_connection_pool_answers_busy_and_the_store_stays_up(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp.state")
    server = MCPServer("pooled", state_url=redis_server.url + "?max_connections=2")

    @server.tool()
    def hello() -> str:
        """Say hello."""
        return "hello"

    admin = redis.Redis(port=redis_server.port)
    try:
        with serve(server) as base:
            url = base + "mcp"
            wire.initialize(url)  # the store answers
            # Redis holds every command a while: the calls that find both connections taken get no
            # connection at all (an initialize always writes its session's record).
            admin.execute_command("CLIENT", "PAUSE", PAUSE_MS, "ALL")
            with ThreadPoolExecutor(CALLS) as pool:
                answers = list(pool.map(lambda _: wire.open_session(url, timeout=30), range(CALLS)))
            refused = [a for a in answers if a.status_code == 503]
            assert refused, [a.status_code for a in answers]
            assert all(a.status_code in (200, 503) for a in answers), [a.text for a in answers]
            for answer in refused:
                error = answer.json()["error"]
                assert "busy" in error["message"], error
                assert answer.headers["Retry-After"] == "1"
                assert error["data"]["retryAfter"] == 1
            # The store was never taken for down: served at once when a connection is free.
            assert [wire.open_session(url, timeout=30).status_code for _ in range(3)] == [200] * 3
            assert server.core.replication is not None
            assert not server.core.replication.state.down  # type: ignore[attr-defined]
    finally:
        admin.close()
    assert "unreachable" not in caplog.text
    assert "reachable again" not in caplog.text
    assert "connections of this process's pool are in use" in caplog.text
