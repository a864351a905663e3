"""What happens to a call whose client goes away, transport by transport, as the HTTP reference
page says ("Cancelling a call").

MCP 2025-03-26 to 2025-11-25, Transports § Streamable HTTP: a disconnect SHOULD NOT be taken as the
client cancelling its request (it sends ``notifications/cancelled``); so a handshake-era POST to
``/mcp`` or ``/`` (with or without a session) and a REST ``POST /tools/<name>`` run to their end when
their client hangs up. A legacy HTTP+SSE client that closes its ``GET /sse`` stream ends its session,
and the session's calls are cancelled. (The 2026-07-28 era, where closing the response *is* the
cancel, is pinned in tests/modern; stdio's end of input in tests/stdio.)
"""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest
from stream_wire import Wire
from support import serve
from test_cancellation_reaches_only_the_senders_request import Tracker, build


def post_and_hang_up(url: str, path: str, body: bytes, headers: dict[str, str], tracker: Tracker, tag: str) -> None:
    """POST ``body`` on a socket of our own and close it once the tool runs."""
    parts = urlsplit(url)
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\n{head}"
                     f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        assert tracker.start(tag).wait(10), "the call never started"


def message(tag: str, request_id: int = 5) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": "wait_for_cancel", "arguments": {"label": tag, "seconds": 1.0}}}).encode()


@pytest.mark.parametrize("route", ["session", "sessionless", "root", "rest"])
def test_a_handshake_era_or_rest_client_that_hangs_up_does_not_cancel_its_call(route: str) -> None:
    tag, tracker = f"hangup-{route}", Tracker()
    with serve(build(tracker)) as url:
        wire = Wire(url)
        accept = "application/json, text/event-stream"
        if route == "rest":
            body = json.dumps({"label": tag, "seconds": 1.0}).encode()
            post_and_hang_up(url, "/tools/wait_for_cancel", body, {"Content-Type": "application/json"}, tracker, tag)
        else:
            session = wire.initialize() if route == "session" else None
            headers = wire.headers(session, version="2025-06-18" if session is None else "2025-11-25", accept=accept)
            post_and_hang_up(url, "/" if route == "root" else "/mcp", message(tag), headers, tracker, tag)
        assert tracker.wait_outcome(tag) == "ran to the end"


def test_a_legacy_sse_client_that_closes_its_stream_cancels_its_sessions_calls() -> None:
    tag, tracker = "legacy-gone", Tracker()
    with serve(build(tracker)) as url:
        wire = Wire(url)
        events, endpoint = wire.legacy()
        init = {"protocolVersion": "2024-11-05", "capabilities": {},
                "clientInfo": {"name": "legacy", "version": "0"}}
        wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        assert events.next_message()["id"] == 1
        wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                    "params": {"name": "wait_for_cancel", "arguments": {"label": tag, "seconds": 10}}})
        assert tracker.start(tag).wait(10)
        events.close()
        assert tracker.wait_outcome(tag) == "saw cancel"
