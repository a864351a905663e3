"""A tools/call refused before the tool runs (arguments that break its schema, an unknown tool)
is still a call the notebook log and the lab panel must show: observers of the event bus get its
``call_finished`` with ``ok`` false and the reason, while the client gets the usual answer
(an ``isError`` result for bad arguments in 2025-11-25, -32602 for an unknown tool).

Regression: such calls published nothing, so the panel's log missed exactly the failed calls a
user most wants to see.
"""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer


def build() -> MCPServer:
    server = MCPServer("refusals")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Sum."""
        return a + b

    return server


@pytest.mark.anyio
async def test_bad_arguments_and_unknown_tools_are_published_as_failed_calls() -> None:
    server = build()
    seen: list[dict[str, Any]] = []
    lock = threading.Lock()

    def observe(event: str, data: dict[str, Any]) -> None:
        with lock:
            seen.append({"event": event, **data})

    server.events.subscribe(observe, events={"call_started", "call_finished"})
    with serve(server) as url, anyio.fail_after(20):
        async with mcp_client(url + "mcp") as client:
            refused = await client.call_tool("add", {"a": "two", "b": 1})
            assert refused.is_error
            with pytest.raises(MCPError):
                await client.call_tool("no_such_tool", {})
            fine = await client.call_tool("add", {"a": 1, "b": 1})
            assert not fine.is_error
    finished = [e for e in seen if e["event"] == "call_finished"]
    assert [(e["name"], e["ok"]) for e in finished] == [("add", False), ("no_such_tool", False), ("add", True)]
    assert "arguments.a" in finished[0]["error"]
    assert "number" in finished[0]["error"]
    assert finished[1]["error"] == "Unknown tool: no_such_tool"
    # Each finished call was announced first, with the same call id.
    started = [e["call_id"] for e in seen if e["event"] == "call_started"]
    assert started == [e["call_id"] for e in finished]
