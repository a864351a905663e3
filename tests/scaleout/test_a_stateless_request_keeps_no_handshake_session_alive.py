"""A 2026-07-28 request carrying a stray ``Mcp-Session-Id`` (a client that kept an old handshake session's id) does
not keep that session alive in the shared store: it is no request of the session. Before (review r31 F2), the
session was read before the era was asked, and reading this process's copy of its record marked it used: the next
pass of the idle clocks restarted the session's clock in Redis (``EXPIRE``). A handshake-era request of the session
still restarts it. Real redis-server, a real server over HTTP.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

import pytest
import redis
from redis_server import RedisServer

from nanohubmcp import MCPServer
from nanohubmcp.state import redis_sessions
from nanohubmcp.state.base import session_key

pytestmark = pytest.mark.timeout(60)

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {},
               "io.modelcontextprotocol/clientInfo": {"name": "stray", "version": "1"}}
LOWERED = 100
"""Seconds the test leaves on the session's record: a restarted clock puts it back to the session's idle time."""


def _post(url: str, body: dict[str, Any], **headers: str) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()
        return response.status, dict(response.headers)


def test_a_stateless_request_naming_a_session_leaves_its_clock_alone(redis_server: RedisServer,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # A lease longer than the test: the record stays this process's copy (read without a load), and no pass of the
    # idle clocks runs on its own: the test runs them (refresh_clocks), on the server's loop.
    monkeypatch.setattr(redis_sessions, "LEASE_SECONDS", 30.0)
    server = MCPServer("stray-session", state_url=redis_server.url).start(port=0, quiet=True)
    try:
        url = f"{server.url}mcp"
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        _, headers = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        session_id = headers["Mcp-Session-Id"]
        handshake = {"Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-11-25"}
        _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **handshake)
        store = redis.Redis.from_url(redis_server.url, decode_responses=True)
        [key] = [key for key in store.scan_iter() if key.endswith(f"s:{session_key(session_id)}")]
        sessions = server.core.replication.state.sessions  # type: ignore[union-attr]

        def clocks_pass() -> None:
            assert server.core.loop is not None
            asyncio.run_coroutine_threadsafe(sessions.refresh_clocks(), server.core.loop).result(10)

        clocks_pass()  # the handshake requests' own restart
        store.expire(key, LOWERED)
        for number in range(3):
            status, _ = _post(url, {"jsonrpc": "2.0", "id": 10 + number, "method": "tools/list",
                                    "params": {"_meta": MODERN_META}},
                              **{"Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2026-07-28",
                                 "Mcp-Method": "tools/list"})
            assert status == 200
        clocks_pass()
        assert 0 < store.ttl(key) <= LOWERED, "a 2026-07-28 request kept the handshake session alive"
        _post(url, {"jsonrpc": "2.0", "id": 20, "method": "ping"}, **handshake)  # the session's own request
        clocks_pass()
        assert store.ttl(key) > LOWERED, "the session's own request did not restart its clock"
    finally:
        server.stop()
