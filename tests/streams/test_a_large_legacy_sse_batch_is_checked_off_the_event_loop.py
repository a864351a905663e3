"""Over the legacy SSE transport too, a large batch's calls have their arguments checked on a worker thread.

The batch (2024-11-05) is POSTed to the endpoint ``GET /sse`` announced, and its answers come on
that stream as one array. Ordering, not timing: the large call's own argument check holds until
``/healthz`` has answered (on main it ran on the event loop, so ``/healthz`` waited for it).
"""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

from stream_wire import Wire
from support import rpc_message, serve, tool_call_message

from nanohubmcp import MCPServer
from nanohubmcp.server.wire.request import LARGE_MESSAGE_BYTES

MANY = 300_000  # about 1.5 MB of JSON: a large message


def test_healthz_answers_while_a_large_legacy_sse_batchs_call_is_checked() -> None:
    checking, healthz_answered = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def check(arguments: dict[str, Any]) -> None:
        if len(arguments["xs"]) == MANY:
            checking.set()
            seen["healthz answered first"] = healthz_answered.wait(30)

    server = MCPServer("large-sse-batch", provenance=False)

    def total(xs: list[float]) -> float:
        """The sum of xs."""
        return sum(xs)

    server.add_tool(total, check_arguments=check)
    with serve(server) as url:
        wire = Wire(url)
        events, endpoint = wire.legacy()
        try:
            assert wire.legacy_post(endpoint, rpc_message("initialize", {
                "protocolVersion": "2024-11-05", "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"}}, 0)).status == 202
            events.until(lambda m: isinstance(m, dict) and m.get("id") == 0)
            batch = [tool_call_message("total", {"xs": [0.5] * MANY}, 1), tool_call_message("total", {"xs": [1]}, 2)]
            assert len(json.dumps(batch)) >= LARGE_MESSAGE_BYTES
            assert wire.legacy_post(endpoint, batch).status == 202  # answered before the calls are served
            try:
                assert checking.wait(120), "the large call's arguments were never checked"
                with urllib.request.urlopen(url + "healthz", timeout=20) as health:  # on the loop: meanwhile
                    assert health.status == 200
                healthz_answered.set()
            finally:
                healthz_answered.set()
            _, answers = events.until(lambda m: isinstance(m, list), timeout=120)
            assert seen["healthz answered first"]
            assert [a["id"] for a in answers] == [1, 2]
            assert [a["result"]["content"][0]["text"] for a in answers] == [str(0.5 * MANY), "1.0"]
        finally:
            events.close()
