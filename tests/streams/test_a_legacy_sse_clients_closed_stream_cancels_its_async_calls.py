"""A legacy HTTP+SSE client (2024-11-05: ``GET /sse``, then POSTs to its endpoint) that closes its stream has
its session's running calls cancelled as its ``notifications/cancelled`` would cancel them: an ``async def``
tool's coroutine gets ``CancelledError`` at once, a sync tool sees ``ctx.is_cancelled()``, and the coroutine's
provenance record says ``cancelled``, its error naming the closed stream.

Before, the session's end cancelled the calls as the server's own cancel: a sync tool saw it, but a coroutine ran
on to its end (here 600 s; in a stopping server, until the stop's grace), recorded ``completed``. A raw client
(``stream_wire.Wire``): the official client's cancel would send a ``notifications/cancelled`` of its own.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from stream_wire import Wire
from support import serve, wait_until

from nanohubmcp import Context, MCPServer
from nanohubmcp.transports.sse import CLOSED_STREAM

pytestmark = pytest.mark.timeout(120)

LONG = 600.0  # seconds a tool would run uncancelled: far past every wait below


def test_closing_the_stream_cancels_a_coroutine_and_tells_a_sync_tool(tmp_path: Path) -> None:
    started = {name: threading.Event() for name in ("aspin", "spin")}
    cancelled, saw_cancel = threading.Event(), threading.Event()
    server = MCPServer("legacy-cancels", state_dir=str(tmp_path))

    @server.tool()
    async def aspin(seconds: float) -> str:
        """Waits, unless cancelled."""
        started["aspin"].set()
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "done"

    @server.tool()
    def spin(seconds: float, ctx: Context) -> str:
        """Waits on a thread, unless cancelled."""
        started["spin"].set()
        if ctx.cancel_event.wait(seconds):
            saw_cancel.set()
            return "stopped"
        return "done"

    def records() -> list[dict[str, object]]:
        return [record for record in server.core.provenance.recent(50) if record["tool"] == "aspin"]

    with serve(server) as url:
        wire = Wire(url)
        events, endpoint = wire.legacy()
        init = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "legacy", "version": "0"}}
        wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        assert events.next_message()["id"] == 1
        wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        for request_id, tool in enumerate(("aspin", "spin"), start=2):
            accepted = wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                                   "params": {"name": tool, "arguments": {"seconds": LONG}}})
            assert accepted.status == 202, accepted
            assert started[tool].wait(30), f"{tool} never started"
        events.close()
        assert cancelled.wait(30), "the coroutine was not cancelled when its client closed the SSE stream"
        assert saw_cancel.wait(30), "the sync tool did not see its cancel"
        record = wait_until(lambda: records() or None, "aspin's provenance record", timeout=30)[0]
        assert record["status"] == "cancelled", record
        assert CLOSED_STREAM in str(record["error"]), record
