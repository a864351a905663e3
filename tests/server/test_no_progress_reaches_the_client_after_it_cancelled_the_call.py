"""A call its client cancelled sends no more ``notifications/progress`` (trial75 F10): a function that reports after
the cancel (in a ``finally``, or one that reads the cancel late) had its report sent with the cancelled request's
token. MCP 2025-11-25, Basic § Utilities § Progress: notifications "MUST only reference tokens that ... are
associated with an in-progress operation"; § Cancellation: the receiver should stop. Observers (a notebook, the
panel) and a job's record still get the report. The server over stdio in this process, raw JSON-RPC lines."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import pytest
from support import stdio_in_process

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(60)


def test_a_report_after_the_cancel_is_not_sent() -> None:
    server = MCPServer("late-progress")
    reported = threading.Event()

    @server.tool()
    def stubborn(ctx: Context) -> str:
        """Reports, waits for its cancel, then reports again."""
        ctx.report_progress(1, 3, "before the cancel")
        ctx.cancel_event.wait(50)
        ctx.report_progress(2, 3, "after the cancel")
        reported.set()
        return "ignored"

    def line(message: dict[str, Any]) -> bytes:
        return json.dumps(message).encode() + b"\n"

    with stdio_in_process(server) as (in_w, written):
        os.write(in_w, line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        assert written.get(timeout=30)["id"] == 0
        os.write(in_w, line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        os.write(in_w, line({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "stubborn", "arguments": {}, "_meta": {"progressToken": "pt"}}}))
        first = written.get(timeout=30)
        assert first["method"] == "notifications/progress", first
        assert first["params"]["message"] == "before the cancel", first
        os.write(in_w, line({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": 1, "reason": "enough"}}))
        assert reported.wait(30), "the tool did not report after its cancel"
        # The late report was handed to the loop before the ping is read: whatever it sent comes first.
        os.write(in_w, line({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        after: list[dict[str, Any]] = []
        while not after or after[-1].get("id") != 2:
            after.append(written.get(timeout=30))
    assert after == [{"jsonrpc": "2.0", "id": 2, "result": {}}], after
