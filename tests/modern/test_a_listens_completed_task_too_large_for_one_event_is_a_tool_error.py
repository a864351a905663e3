"""A 2026 ``subscriptions/listen`` naming a task tells its completion in one SSE event, the ``DetailedTask``
carrying the task's result: a result over the official ``mcp`` client's 1 MiB for one event (a tool with an output
schema, whose data is never linked) was told whole, an event that client drops ("Server-sent event exceeded the
1048576 byte limit"), losing the listen. Now the completion is told with a tool error (``isError: true``) naming
the size and that ``tasks/get`` answers the result whole, as JSON, which it does. Raw HTTP (the official client
listens for no task), a real server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from modern_wire import TASK_CAPS, Wire
from support import serve

from nanohubmcp import MCPServer

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

    return server


@pytest.mark.parametrize("rows", [ROWS, 300])
def test_a_listens_completed_task_is_told_within_one_event(rows: int) -> None:
    with serve(build()) as url:
        wire = Wire(url + "mcp", caps=TASK_CAPS)
        task = wire.call("tools/call", {"name": "held", "arguments": {"rows": rows}}).result
        task_id = task["taskId"]
        stream = wire.listen("subscriptions/listen", {"notifications": {"taskIds": [task_id]}}, request_id=31)
        with stream:
            assert stream.next(timeout=10) is not None  # the acknowledgement
            done = None
            while done is None or done["params"]["status"] != "completed":
                done = stream.next(timeout=30)
                assert done is not None, "no completion told"
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
