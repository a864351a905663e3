"""A 2026 ``subscriptions/listen`` naming a task tells its completion in one SSE event, the ``DetailedTask``
carrying the task's result: a result over the official ``mcp`` client's 1 MiB for one event (a tool with an output
schema, whose data is never linked) was told whole, an event that client drops ("Server-sent event exceeded the
1048576 byte limit"), losing the listen. Now the completion is told with a tool error (``isError: true``) naming
the size and that ``tasks/get`` answers the result whole, as JSON, which it does. So is a task whose tool returned
its own ``isError`` result (told ``completed``): before, its completion skipped the hold and went out whole, its
text twice (the result's and, uncut, the status message's). Raw HTTP (the official client listens for no task), a
real server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from modern_wire import TASK_CAPS, Wire
from support import serve

from nanohubmcp import MCPServer, ToolResult

pytestmark = pytest.mark.timeout(120)

ROWS = 2_000  # rows of 1,000 characters: about 4 MB with its structured content
SCHEMA = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "string"}}},
          "required": ["rows"]}


def build() -> MCPServer:
    server = MCPServer("listened", job_store="memory")

    @server.async_tool(output_schema=SCHEMA)
    def held(rows: int, seconds: float = 2.0) -> dict[str, Any]:
        """``rows`` rows of 1,000 characters, after ``seconds``."""
        import time

        time.sleep(seconds)
        return {"rows": ["r" * 1000] * rows}

    @server.async_tool()
    def failing(chars: int, seconds: float = 2.0) -> ToolResult:
        """Fails with its own error result of ``chars`` characters (a simulator's whole log), after ``seconds``."""
        import time

        time.sleep(seconds)
        return ToolResult("E" * chars, is_error=True)

    return server


def listened(wire: Wire, task_id: str) -> dict[str, Any]:
    """The completion a 2026 listen naming ``task_id`` tells."""
    stream = wire.listen("subscriptions/listen", {"notifications": {"taskIds": [task_id]}}, request_id=31)
    with stream:
        assert stream.next(timeout=10) is not None  # the acknowledgement
        done = None
        while done is None or done["params"]["status"] != "completed":
            done = stream.next(timeout=30)
            assert done is not None, "no completion told"
    return done


@pytest.mark.parametrize("rows", [ROWS, 300])
def test_a_listens_completed_task_is_told_within_one_event(rows: int) -> None:
    with serve(build()) as url:
        wire = Wire(url + "mcp", caps=TASK_CAPS)
        task = wire.call("tools/call", {"name": "held", "arguments": {"rows": rows}}).result
        task_id = task["taskId"]
        done = listened(wire, task_id)
        got = wire.call("tasks/get", {"taskId": task_id}).result
    assert len(json.dumps(done).encode()) < 1 << 20
    assert got["result"]["structuredContent"] == {"rows": ["r" * 1000] * rows}  # tasks/get: JSON, whole
    result = done["params"]["result"]
    if rows < ROWS:  # within one event: told whole
        assert result["structuredContent"] == {"rows": ["r" * 1000] * rows}
        return
    assert result["isError"] is True, str(result)[:300]
    text = result["content"][0]["text"]
    assert text.startswith(f"task {task_id} (tool 'held') answered "), text
    for said in ("(1048576 bytes, 1 MiB)", "subscriptions/listen", "send tasks/get", "Streamable HTTP"):
        assert said in text, text


def test_a_listens_completed_task_with_a_long_error_result_is_told_within_one_event() -> None:
    chars = 2_000_000  # an error result of 2 MB
    with serve(build()) as url:
        wire = Wire(url + "mcp", caps=TASK_CAPS)
        task_id = wire.call("tools/call", {"name": "failing", "arguments": {"chars": chars}}).result["taskId"]
        done = listened(wire, task_id)
        got = wire.call("tasks/get", {"taskId": task_id}).result
    assert len(json.dumps(done).encode()) < 1 << 20
    assert got["result"]["isError"] is True
    assert got["result"]["content"][0]["text"] == "E" * chars  # tasks/get: JSON, whole
    assert len(got["statusMessage"]) < 70_000  # its text cut as a sent text is (the result holds it whole)
    text = done["params"]["result"]["content"][0]["text"]
    assert text.startswith(f"task {task_id} (tool 'failing') answered "), text[:300]
    assert "send tasks/get" in text, text
