"""Issue 13 § 4: ``notifications/cancelled`` names a request by a JSON-RPC id (string or integer).

``requestId: [1]`` used to raise inside the handler (an unhashable key) and log a traceback per
message; ``requestId: true`` (or ``1.0``) equals 1 in Python and cancelled request 1. Neither is
an id: the notification is ignored, quietly.

Source: MCP 2025-11-25, Basic § Utilities § Cancellation; JSON-RPC 2.0 § 4 (ids).
"""

from __future__ import annotations

import logging
import threading
import time

from streams.stream_wire import Wire
from support import serve

from nanohubmcp import Context, MCPServer


def build(started: threading.Event) -> MCPServer:
    server = MCPServer("cancel-ids")

    @server.tool()
    def wait_for_cancel(seconds: float, ctx: Context) -> str:
        """Run until cancelled or ``seconds`` pass; say which."""
        started.set()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if ctx.is_cancelled():
                return "saw cancel"
            time.sleep(0.01)
        return "ran to the end"

    return server


def test_requestid_true_or_1_0_or_an_array_cancels_nothing_and_logs_no_traceback(caplog) -> None:
    started = threading.Event()
    caplog.set_level(logging.INFO, logger="nanohubmcp")
    with serve(build(started)) as url:
        wire = Wire(url)
        session = wire.initialize()
        rid, call = wire.stream_call(
            "tools/call", {"name": "wait_for_cancel", "arguments": {"seconds": 1.5}}, session, id=1
        )
        assert started.wait(10)
        for bogus in (True, 1.0, [1], {"id": 1}, None):
            reply = wire.notify("notifications/cancelled", {"requestId": bogus, "reason": "x"}, session)
            assert reply.status == 202
        _, last = call.until(lambda m: m.get("id") == rid)
        assert last["result"]["content"][0]["text"] == "ran to the end"
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records if r.exc_info]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
