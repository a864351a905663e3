"""``notifications/cancelled`` cancels only the sender's own request.

Request ids are chosen by clients, so two sessions may use the same id at once: a cancel from
session B naming id 7 must reach B's request 7 and never A's. The tool sees cancellation through
``ctx.is_cancelled()``; the official client's own cancellation (a cancelled ``call_tool``) reaches
the tool over both transports.

Source: MCP 2025-11-25, Basic § Utilities § Cancellation.
"""

from __future__ import annotations

import threading
import time

import anyio
import pytest
from stream_wire import Wire
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer


class Tracker:
    """What the tool saw, per label (filled on worker threads)."""

    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}
        self.started: dict[str, threading.Event] = {}
        self.lock = threading.Lock()

    def start(self, label: str) -> threading.Event:
        with self.lock:
            return self.started.setdefault(label, threading.Event())

    def wait_outcome(self, label: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if label in self.outcomes:
                    return self.outcomes[label]
            time.sleep(0.01)
        raise AssertionError(f"the tool labelled {label!r} never finished")


def build(tracker: Tracker) -> MCPServer:
    server = MCPServer("cancellation")

    @server.tool()
    def wait_for_cancel(label: str, seconds: float, ctx: Context) -> str:
        """Run until cancelled or ``seconds`` pass; say which."""
        tracker.start(label).set()
        deadline = time.monotonic() + seconds
        outcome = "ran to the end"
        while time.monotonic() < deadline:
            if ctx.is_cancelled():
                outcome = "saw cancel"
                break
            time.sleep(0.01)
        with tracker.lock:
            tracker.outcomes[label] = outcome
        return outcome

    @server.tool()
    def report_then_wait(label: str, seconds: float, ctx: Context) -> str:
        """Report progress (the answer becomes SSE), then wait like wait_for_cancel."""
        ctx.report_progress(0, 1)
        return wait_for_cancel(label, seconds, ctx)

    return server


def waiting(label: str, seconds: float) -> dict:
    """``tools/call`` params for ``wait_for_cancel``."""
    return {"name": "wait_for_cancel", "arguments": {"label": label, "seconds": seconds}}


def test_a_cancel_from_another_session_does_not_cancel_and_one_from_the_same_session_does() -> None:
    tracker = Tracker()
    server = build(tracker)
    with serve(server) as url:
        wire = Wire(url)
        session_a = wire.initialize()
        session_b = wire.initialize()
        # A and B both have a request with id 7 in flight.
        _, a_stream = wire.stream_call("tools/call", waiting("A", 1.0), session_a, id=7)
        _, b_stream = wire.stream_call("tools/call", waiting("B", 5.0), session_b, id=7)
        try:
            assert tracker.start("A").wait(5)
            assert tracker.start("B").wait(5)
            reply = wire.notify("notifications/cancelled", {"requestId": 7, "reason": "B changed its mind"},
                                session_b)
            assert reply.status == 202
            assert tracker.wait_outcome("B", 3) == "saw cancel"
            assert tracker.wait_outcome("A", 5) == "ran to the end"
        finally:
            a_stream.close()
            b_stream.close()

        # Now A cancels its own request: the tool sees it.
        _, a_stream = wire.stream_call("tools/call", waiting("A2", 5.0), session_a, id=8)
        try:
            assert tracker.start("A2").wait(5)
            refused = wire.notify("notifications/cancelled", {"requestId": 8}, session_b)  # still not B's to cancel
            assert refused.status == 202  # answered once served: a cancel it made would be set by now
            record = server.core.sessions.get(session_a)
            assert record is not None
            assert not record.in_flight[8].cancelled.is_set()
            assert "A2" not in tracker.outcomes
            wire.notify("notifications/cancelled", {"requestId": 8, "reason": "no longer needed"}, session_a)
            assert tracker.wait_outcome("A2", 3) == "saw cancel"
        finally:
            a_stream.close()


def test_a_sessionless_cancel_reaches_nobody() -> None:
    tracker = Tracker()
    with serve(build(tracker)) as url:
        wire = Wire(url)
        session = wire.initialize()
        _, stream = wire.stream_call("tools/call", waiting("S", 0.8), session, id=3)
        try:
            assert tracker.start("S").wait(5)
            assert wire.notify("notifications/cancelled", {"requestId": 3}, None).status == 202
            assert tracker.wait_outcome("S", 5) == "ran to the end"
        finally:
            stream.close()


@pytest.mark.anyio
@pytest.mark.parametrize(("transport", "endpoint"), [("http", "mcp"), ("sse", "sse")])
async def test_the_official_client_cancelling_a_call_reaches_the_tool(transport: str, endpoint: str) -> None:
    tracker = Tracker()
    with serve(build(tracker)) as url, anyio.fail_after(30):
        async with mcp_client(url + endpoint, transport=transport) as client, \
                mcp_client(url + endpoint, transport=transport) as other:
            async with anyio.create_task_group() as group:
                # The other session runs the same tool at the same time and is left alone.
                group.start_soon(other.call_tool, "wait_for_cancel", {"label": "other", "seconds": 1.5})
                with anyio.move_on_after(0.5):
                    await client.call_tool("wait_for_cancel", {"label": "mine", "seconds": 10})
                outcome = await anyio.to_thread.run_sync(tracker.wait_outcome, "mine", 5.0)
                assert outcome == "saw cancel"
            assert tracker.outcomes["other"] == "ran to the end"
            # The session is still usable after the cancellation.
            result = await client.call_tool("wait_for_cancel", {"label": "after", "seconds": 0.01})
            assert result.content[0].text == "ran to the end"


def test_a_request_the_client_cancelled_gets_no_response() -> None:
    """MCP 2025-11-25, Utilities § Cancellation: the receiver SHOULD NOT respond to a cancelled
    request; Transports § Streamable HTTP: a POST holding a request is answered with an SSE stream
    or JSON, 202 being for notifications and responses. A POST accepting SSE with nothing sent yet
    gets an empty stream; one accepting JSON only the error -32800 naming the cancel; an SSE
    response ends after what it carried, without the response. Regressions (fresh-user trials):
    the response was still sent; then such a POST was answered 202 with no body."""
    tracker = Tracker()
    with serve(build(tracker)) as url:
        wire = Wire(url)
        session = wire.initialize()
        plain = wire.start("POST", "/mcp", {"jsonrpc": "2.0", "id": 41, "method": "tools/call",
                                             "params": waiting("json", 10)},
                           wire.headers(session, accept="application/json"))
        assert tracker.start("json").wait(5)
        wire.notify("notifications/cancelled", {"requestId": 41, "reason": "no longer needed"}, session)
        assert tracker.wait_outcome("json", 5) == "saw cancel"
        assert plain.wait_head() == 200
        assert plain.headers["Content-Type"].startswith("application/json")
        assert plain.next_message(timeout=5) == {"jsonrpc": "2.0", "id": 41, "error": {
            "code": -32800, "message": "Request cancelled (notifications/cancelled): no longer needed"}}
        assert plain.next_message(timeout=5) is None

        # Accepting both (as the official clients do), no progress: an SSE stream that ends with no event.
        _, quiet = wire.stream_call("tools/call", waiting("quiet", 10), session, id=40)
        assert tracker.start("quiet").wait(5)
        wire.notify("notifications/cancelled", {"requestId": 40}, session)
        assert tracker.wait_outcome("quiet", 5) == "saw cancel"
        assert quiet.wait_head() == 200
        assert quiet.is_sse
        assert quiet.next(timeout=5) is None

        # Progress first makes the answer SSE; then the cancel: the stream ends with no response.
        params = {"name": "report_then_wait", "arguments": {"label": "sse", "seconds": 10},
                  "_meta": {"progressToken": "p"}}
        _, events = wire.stream_call("tools/call", params, session, id=42)
        assert tracker.start("sse").wait(5)
        assert events.wait_head() == 200
        assert events.next_message()["method"] == "notifications/progress"
        wire.notify("notifications/cancelled", {"requestId": 42}, session)
        assert tracker.wait_outcome("sse", 5) == "saw cancel"
        rest = []
        while (message := events.next_message(timeout=5)) is not None:
            rest.append(message)
        assert not [m for m in rest if m.get("id") == 42], rest

        # The session goes on serving.
        answer = wire.request("tools/call", waiting("after", 0.01), session)
        assert answer["result"]["content"][0]["text"] == "ran to the end"


def test_a_legacy_sse_request_the_client_cancelled_gets_no_response() -> None:
    tracker = Tracker()
    with serve(build(tracker)) as url:
        wire = Wire(url)
        events, endpoint = wire.legacy()
        try:
            init = {"protocolVersion": "2024-11-05", "capabilities": {},
                    "clientInfo": {"name": "legacy", "version": "0"}}
            assert wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                               "params": init}).status == 202
            assert events.next_message()["id"] == 1
            wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                        "params": waiting("legacy", 10)})
            assert tracker.start("legacy").wait(5)
            wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                        "params": {"requestId": 2}})
            assert tracker.wait_outcome("legacy", 5) == "saw cancel"
            wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": 3, "method": "ping"})
            # The next response on the stream is the ping's: request 2 got none.
            assert events.next_message()["id"] == 3
        finally:
            events.close()
