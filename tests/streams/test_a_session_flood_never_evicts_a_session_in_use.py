"""Issue 13 § 2: flooding ``initialize`` must not end a session a client is using.

At the session limit the least recently used *quiet* session makes room; when every session is
busy (an open stream or a call in flight) a new one is refused with HTTP 503, ``Retry-After``
and a JSON-RPC error saying what to do. Finding a victim looks only at the front of the
least-recently-used order, so it costs the same however many sessions there are.

Source: MCP 2025-11-25, Transports § Session Management; RFC 9110 § 15.6.4 (503), § 10.2.3.
"""

from __future__ import annotations

import threading

import pytest
from streams.stream_wire import Reply, Wire
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import ServerBusy
from nanohubmcp.server.wire.sessions import EVICTION_PROBES, Session, SessionStore


def bare_initialize(wire: Wire) -> Reply:
    """POST an ``initialize`` and return the raw reply (no asserts: it may be refused)."""
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "0"}}
    return wire.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}, version=None)


def build(release: threading.Event, started: threading.Event) -> MCPServer:
    server = MCPServer("flood")

    @server.tool()
    def hold() -> str:
        """Block until the test releases it."""
        started.set()
        release.wait(20)
        return "released"

    return server


def test_a_flood_of_initialize_keeps_the_streaming_and_the_calling_session_and_gets_503() -> None:
    release, started = threading.Event(), threading.Event()
    server = build(release, started)
    server.core.sessions.max_sessions = 6
    with serve(server) as url:
        wire = Wire(url)
        listening = wire.initialize()
        stream = wire.listen(listening)
        calling = wire.initialize()
        rid, call = wire.stream_call("tools/call", {"name": "hold", "arguments": {}}, calling)
        assert started.wait(10)
        try:
            refused = None
            for _ in range(20):
                reply = bare_initialize(wire)
                if reply.status != 200:
                    refused = reply
                    break
            # Quiet flood sessions made room for each other; only the two busy ones could not.
            assert refused is None
            assert len(server.core.sessions) == 6
            assert server.core.sessions.get(listening) is not None
            assert server.core.sessions.get(calling) is not None
            assert wire.request("ping", {}, listening)["result"] == {}
        finally:
            release.set()
        _, last = call.until(lambda m: m.get("id") == rid)
        assert last["result"]["content"][0]["text"] == "released"
        stream.close()


def test_when_every_session_is_busy_a_new_one_gets_503_with_retry_after() -> None:
    release, started = threading.Event(), threading.Event()
    server = build(release, started)
    server.core.sessions.max_sessions = 2
    with serve(server) as url:
        wire = Wire(url)
        streams = [wire.listen(wire.initialize()) for _ in range(2)]
        try:
            reply = bare_initialize(wire)
            assert reply.status == 503
            assert reply.headers.get("Retry-After") == "30"
            assert "Mcp-Session-Id" not in reply.headers
            error = reply.json["error"]
            assert error["code"] == ServerBusy.code
            assert "Too many sessions" in error["message"]
            assert error["data"] == {"retryAfter": 30}
        finally:
            for events in streams:
                events.close()
            release.set()


def test_making_room_takes_the_least_recently_used_quiet_session() -> None:
    store = SessionStore(max_sessions=1000)
    sessions = [store.create("2025-11-25") for _ in range(1000)]
    sessions[0].touch()  # now the most recently used: sessions[1] is the one to go
    store.create("2025-11-25")
    assert store.get(sessions[1].id) is None
    assert store.get(sessions[0].id) is not None
    assert len(store) == 1000


def test_a_store_full_of_busy_sessions_refuses_after_looking_at_a_few(monkeypatch) -> None:
    store = SessionStore(max_sessions=1000)
    for _ in range(1000):
        store.create("2025-11-25").in_flight[1] = object()
    looked = []
    monkeypatch.setattr(Session, "busy", property(lambda self: looked.append(self) or True))
    with pytest.raises(ServerBusy) as refused:
        store.create("2025-11-25")
    assert refused.value.retry_after == 30
    assert 0 < len(looked) <= 2 * EVICTION_PROBES


def test_a_legacy_sse_stream_past_the_limit_gets_503_not_a_server_error() -> None:
    server = MCPServer("legacy-flood")
    server.core.sessions.max_sessions = 1
    with serve(server) as url:
        wire = Wire(url)
        first, _ = wire.legacy()
        try:
            reply = wire.send("GET", "/sse", None, {"Accept": "text/event-stream"})
            assert reply.status == 503
            assert reply.headers.get("Retry-After") == "30"
            assert reply.json["error"]["code"] == ServerBusy.code
        finally:
            first.close()
