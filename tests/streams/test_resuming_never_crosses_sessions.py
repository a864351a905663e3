"""``Last-Event-ID`` resumes only the caller's own streams: an event id seen on session A's stream,
presented by session B, replays nothing of A's (event ids name a stream within one session).

Source: MCP 2025-11-25, Transports § Resumability and Redelivery ("MUST NOT replay messages that
would have been delivered on a different stream"); issue 3 ("No message ever goes to another
session's stream").
"""

from __future__ import annotations

from stream_wire import Wire
from support import serve, wait_until_answered

from nanohubmcp import Context, MCPServer


def build() -> MCPServer:
    server = MCPServer("resume-isolation")

    @server.tool()
    async def secret(ctx: Context) -> str:
        """Hang up the stream, log a secret, answer."""
        ctx.close_stream()
        ctx.info("the secret of A")
        return "A's answer"

    return server


def test_an_event_id_from_another_session_replays_nothing_of_its_messages() -> None:
    server = build()
    with serve(server) as url:
        wire = Wire(url)
        session_a = wire.initialize(log_level="info")
        session_b = wire.initialize(log_level="info")
        call_id, hung_up = wire.stream_call("tools/call", {"name": "secret", "arguments": {}}, session_a)
        primed = hung_up.next()
        assert primed is not None
        assert primed.id
        assert primed.data == ""
        assert hung_up.ended.wait(5)
        wait_until_answered(server, session_a, primed.id)  # A's messages wait on the server for A

        as_b = wire.listen(session_b, last_event_id=primed.id)
        try:
            assert as_b.quiet_for(0.5) == []
        finally:
            as_b.close()

        as_a = wire.listen(session_a, last_event_id=primed.id)
        try:
            before, final = as_a.until(lambda m: m.get("id") == call_id)
            assert [m["params"]["data"] for m in before] == ["the secret of A"]
            assert final["result"]["content"][0]["text"] == "A's answer"
        finally:
            as_a.close()
