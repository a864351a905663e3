"""One authenticated principal may hold only a share of the session table, so it cannot lock
other principals out (triala F10).

At its share the principal's own least recently used quiet session makes room; when all of its
sessions are busy (an open stream), only that principal gets 503 with ``Retry-After`` and a
message naming the cap, and another principal still opens sessions. Without authorization every
client is the same anonymous caller and only the overall limit applies.

Source: MCP 2025-11-25, Transports § Session Management; RFC 9110 § 15.6.4 (503), § 10.2.3.
"""

from __future__ import annotations

from typing import Any

import pytest
from streams.stream_wire import Events, Reply, Wire
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import ServerBusy
from nanohubmcp.server.wire.sessions import SessionStore

USERS = {"ta": "alice", "tb": "bob"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "quota", "version": "0"}},
}


def shared_server(max_sessions: int) -> MCPServer:
    server = MCPServer("shared", auth=USERS.get)
    server.core.sessions.max_sessions = max_sessions
    return server


def initialize(wire: Wire, token: str) -> Reply:
    return wire.send("POST", "/mcp", INIT, Wire.headers(version=None, Authorization=f"Bearer {token}"))


def open_stream(wire: Wire, token: str) -> Events:
    """A legacy ``GET /sse``: a session with its stream open, so it is busy and never evicted."""
    events = wire.start("GET", "/sse", None, {"Accept": "text/event-stream", "Authorization": f"Bearer {token}"})
    events.wait_head()
    return events


def ping(wire: Wire, session: str, token: str) -> int:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    return wire.send("POST", "/mcp", message, Wire.headers(session, Authorization=f"Bearer {token}")).status


def test_a_principal_with_all_its_sessions_streaming_gets_503_and_another_principal_gets_in() -> None:
    server = shared_server(max_sessions=20)  # the default share is a tenth: 2 per principal
    with serve(server) as url:
        wire = Wire(url)
        streams = [open_stream(wire, "ta") for _ in range(2)]
        try:
            assert [s.status for s in streams] == [200, 200]
            refused = initialize(wire, "ta")
            assert refused.status == 503
            assert refused.headers.get("Retry-After") == "30"
            assert "Mcp-Session-Id" not in refused.headers
            error = refused.json["error"]
            assert error["code"] == ServerBusy.code
            assert "at most 2 per principal" in error["message"]
            also_refused = open_stream(wire, "ta")
            assert also_refused.status == 503
            also_refused.close()
            welcomed = initialize(wire, "tb")
            assert welcomed.status == 200
            assert welcomed.headers.get("Mcp-Session-Id")
        finally:
            for events in streams:
                events.close()


def test_at_its_share_a_principal_s_own_oldest_quiet_session_makes_room() -> None:
    server = shared_server(max_sessions=20)
    with serve(server) as url:
        wire = Wire(url)
        bobs = initialize(wire, "tb").headers["Mcp-Session-Id"]
        alices = [initialize(wire, "ta").headers["Mcp-Session-Id"] for _ in range(3)]
        assert ping(wire, alices[0], "ta") == 404  # made room for alice's third
        assert ping(wire, alices[1], "ta") == 200
        assert ping(wire, alices[2], "ta") == 200
        assert ping(wire, bobs, "tb") == 200  # bob's session was never a candidate
        assert len(server.core.sessions) == 3


def test_anonymous_sessions_share_only_the_overall_limit() -> None:
    store = SessionStore(max_sessions=20)
    assert store.max_per_principal == 2
    assert SessionStore().max_per_principal == 1000
    anonymous = [store.create("2025-11-25") for _ in range(20)]
    assert all(store.get(s.id) is s for s in anonymous)


def test_the_share_is_configurable_and_freed_when_a_session_ends() -> None:
    store = SessionStore(max_sessions=100, max_per_principal=3)
    held = [store.create("2025-11-25", principal="alice") for _ in range(3)]
    for session in held:
        session.in_flight[1] = object()
    with pytest.raises(ServerBusy, match="at most 3 per principal"):
        store.create("2025-11-25", principal="alice")
    held[0].in_flight.clear()
    store.remove(held[0].id)
    assert store.create("2025-11-25", principal="alice").principal == "alice"
    assert store.create("2025-11-25", principal="bob").principal == "bob"
