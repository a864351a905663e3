"""Session lifetime: an idle session expires (its id then gets 404, so the client initializes
again); DELETE ends the session and closes its open GET stream; a legacy SSE session ends with
its stream. A session that still has an open stream or a call in flight is not idle.

Source: MCP 2025-11-25, Transports § Streamable HTTP § Session Management (404 for an ended
session; DELETE); idle sessions expire after ``session_idle_seconds``.
"""

from __future__ import annotations

import time

from stream_wire import Wire
from support import serve, wait_until

from nanohubmcp import Context, MCPServer

IDLE = 0.5
# The tests that need a session to survive give it more room: a stalled client on a loaded machine
# must not look idle. The expiry tests keep the short IDLE (they wait well past it either way).
ALIVE_IDLE = 1.0


def build(idle: float = IDLE) -> MCPServer:
    server = MCPServer("lifetimes", session_idle_seconds=idle)

    @server.tool()
    def nap(seconds: float, ctx: Context) -> str:
        """Sleep, reporting progress once so the reply is a stream."""
        ctx.report_progress(0, 1)
        time.sleep(seconds)
        return "rested"

    return server


def wait_until_idle(server: MCPServer, session_id: str) -> None:
    """Wait until the session has been idle longer than ``IDLE`` by the server's clock (its last activity)."""
    record = server.core.sessions.get(session_id)
    assert record is not None
    wait_until(lambda: time.monotonic() - record.last_seen > IDLE, f"session {session_id} was idle {IDLE} s", 10)


def test_an_idle_session_expires_and_its_id_then_gets_404() -> None:
    server = build()
    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize()
        assert wire.request("ping", {}, session)["result"] == {}
        wait_until_idle(server, session)
        reply = wire.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, session)
        assert reply.status == 404
        assert "initialize again" in reply.json["error"]["message"]
        assert server.core.sessions.get(session) is None
        # The client recovers by initializing again.
        fresh = wire.initialize()
        assert fresh != session
        assert wire.request("ping", {}, fresh)["result"] == {}


def test_a_session_whose_calls_were_answered_as_streams_still_expires() -> None:
    # Regression: a finished SSE reply kept its writer attached, so the session looked busy forever.
    server = build()
    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize()
        reply = wire.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": "nap", "arguments": {"seconds": 0},
                                      "_meta": {"progressToken": 1}}},
                          session)
        assert reply.headers.get("Content-Type") == "text/event-stream"
        assert reply.messages()[-1]["result"]["content"][0]["text"] == "rested"
        wait_until_idle(server, session)
        assert wire.post({"jsonrpc": "2.0", "id": 3, "method": "ping"}, session).status == 404


def test_activity_keeps_a_session_alive() -> None:
    with serve(build(ALIVE_IDLE)) as url:
        wire = Wire(url)
        session = wire.initialize()
        for _ in range(8):  # 2 s in all, twice the idle limit
            time.sleep(ALIVE_IDLE / 4)
            assert wire.request("ping", {}, session)["result"] == {}


def test_an_open_get_stream_or_a_long_call_keeps_a_session_from_expiring() -> None:
    server = build(ALIVE_IDLE)
    with serve(server) as url:
        wire = Wire(url)
        listening = wire.initialize()
        stream = wire.listen(listening)
        working = wire.initialize()
        call_id, call = wire.stream_call("tools/call", {"name": "nap", "arguments": {"seconds": ALIVE_IDLE * 3},
                                                        "_meta": {"progressToken": 1}}, working)
        try:
            time.sleep(ALIVE_IDLE * 2.5)
            _, final = call.until(lambda m: m.get("id") == call_id)
            assert final["result"]["content"][0]["text"] == "rested"
            assert wire.request("ping", {}, working)["result"] == {}  # idle time counts from the call's end
            # Idle time counts from the stream's end too: close it, and the session is still there.
            stream.close()
            record = server.core.sessions._sessions[listening]
            deadline = time.monotonic() + 5
            while record.standalone is not None and record.standalone.sink is not None:
                assert time.monotonic() < deadline, "the server never noticed the closed stream"
                time.sleep(0.01)
            assert wire.request("ping", {}, listening)["result"] == {}
        finally:
            stream.close()
            call.close()


def test_delete_ends_the_session_and_closes_its_get_stream() -> None:
    server = build()
    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize()
        other = wire.initialize()
        stream, other_stream = wire.listen(session), wire.listen(other)
        try:
            assert stream.next() is not None  # the priming event
            assert wire.delete(session).status == 204
            assert stream.ended.wait(5), "DELETE left the GET stream open"
            assert wire.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, session).status == 404
            assert wire.delete(session).status == 404
            # The other session and its stream are untouched.
            assert not other_stream.ended.is_set()
            assert wire.request("ping", {}, other)["result"] == {}
        finally:
            stream.close()
            other_stream.close()


def test_a_legacy_session_ends_with_its_stream() -> None:
    server = build()
    with serve(server) as url:
        wire = Wire(url)
        stream, endpoint = wire.legacy()
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert wire.legacy_post(endpoint, ping).status == 202
        assert stream.next_message() == {"jsonrpc": "2.0", "id": 1, "result": {}}
        stream.close()
        deadline = time.monotonic() + 5
        while wire.legacy_post(endpoint, ping).status != 404:
            assert time.monotonic() < deadline, "the legacy session outlived its stream"
            time.sleep(0.02)
