"""Legacy HTTP+SSE (2024-11-05): POSTs to the announced endpoint — or to ``/?session_id=`` as the
earlier package's clients do — are answered 202 and the response goes on that session's stream
only; a POST to ``/`` without a session keeps answering in its HTTP body; an unknown session id,
or the id of a Streamable HTTP session, is 404.

Source: MCP 2024-11-05, Basic § Transports § HTTP with SSE; issue 3 ("No message ever goes to
another session's stream").
"""

from __future__ import annotations

from stream_wire import Wire
from support import serve, tool_call_message

from nanohubmcp import MCPServer

PREFIX = "/weber/3/legacy/1"


def build() -> MCPServer:
    server = MCPServer("legacy")

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    return server


def test_each_post_is_answered_on_its_own_sessions_stream_only_under_both_post_paths() -> None:
    with serve(build(), path_prefix=PREFIX) as url:
        wire = Wire(url)
        stream_a, endpoint_a = wire.legacy()
        stream_b, endpoint_b = wire.legacy()
        try:
            session_a = endpoint_a.split("session_id=", 1)[1]
            assert endpoint_a.startswith(PREFIX + "/messages/")
            assert wire.legacy_post(endpoint_a, tool_call_message("echo", {"text": "via messages"}, 1)).status == 202
            via_root = tool_call_message("echo", {"text": "via root"}, 2)
            assert wire.legacy_post(f"{PREFIX}/?session_id={session_a}", via_root).status == 202
            got = [stream_a.next_message(), stream_a.next_message()]
            # two calls in flight on the worker pool end in either order: each answer on this stream, any order
            answers = sorted((m["id"], m["result"]["content"][0]["text"]) for m in got)
            assert answers == [(1, "via messages"), (2, "via root")]
            assert stream_b.quiet_for(0.3) == []
            assert wire.legacy_post(endpoint_b, tool_call_message("echo", {"text": "for b"}, 3)).status == 202
            assert stream_b.next_message()["result"]["content"][0]["text"] == "for b"
            assert stream_a.quiet_for(0.2) == []
        finally:
            stream_a.close()
            stream_b.close()


def test_a_post_to_the_root_without_a_session_answers_in_its_body() -> None:
    with serve(build(), path_prefix=PREFIX) as url:
        plain = tool_call_message("echo", {"text": "plain"}, 4)
        reply = Wire(url).post(plain, None, path="/", accept="application/json")
        assert reply.status == 200
        assert reply.json["result"]["content"][0]["text"] == "plain"


def test_unknown_or_streamable_http_session_ids_are_refused_on_the_legacy_endpoint() -> None:
    with serve(build(), path_prefix=PREFIX) as url:
        wire = Wire(url)
        modern_session = wire.initialize()
        for session_id in ("not-a-session", modern_session):
            for path in (f"{PREFIX}/messages/?session_id={session_id}", f"{PREFIX}/?session_id={session_id}"):
                reply = wire.legacy_post(path, tool_call_message("echo", {"text": "x"}, 5))
                assert reply.status == 404, (path, reply.status)
                assert "GET /sse" in reply.json["error"]["message"]
