"""A 2026-07-28 call that goes on as a task (``ctx.start_task()``) stores its end as an ``@async_tool``'s job does,
through the same finishing step (``executors.service.finish_call``):

- a result holding a list (its array an encoded stand-in until stored) is stored as the task's end: before, the
  job store's size check (stdlib ``json``) raised TypeError in the task's follower, the end was never written,
  and the task stayed ``working`` for every other reader of the store (another worker, a restarted server),
  while the process that ran it said ``completed``;
- a result over the official client's 1 MiB for one SSE event, of a call whose stream opened (a progress
  notification went first), is the task's real result: its answer (the task handle) went already, and
  ``tasks/get`` answers JSON, whatever its size. Before, the call's event bound replaced it with the "too large
  for one event" tool error, which the task stored.

A real server on a SQLite job store, a second server on the same store reading the task, raw 2026 HTTP."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from modern_wire import TASK_CAPS, Wire
from support import serve

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(120)

SCHEMA = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "string"}}},
          "required": ["rows"]}


def build(state_dir: Path) -> MCPServer:
    server = MCPServer("goes-on", state_dir=str(state_dir))

    @server.tool(task_support="optional")
    def curve(n: int, ctx: Context) -> list[float]:
        """``n`` points of a curve, as a task."""
        ctx.start_task("working")
        return [i * 0.5 for i in range(n)]

    @server.tool(output_schema=SCHEMA, task_support="optional")
    def table(rows: int, ctx: Context) -> dict[str, Any]:
        """Reports progress, goes on as a task, returns ``rows`` rows of 1,000 characters."""
        ctx.report_progress(1, 2)
        ctx.start_task("working")
        return {"rows": ["r" * 1000] * rows}

    return server


def ended(wire: Wire, task_id: str) -> dict[str, Any]:
    """``tasks/get`` of ``task_id`` once it is no longer ``working`` (or as it is after 20 s)."""
    deadline = time.monotonic() + 20
    while True:
        got: dict[str, Any] = wire.call("tasks/get", {"taskId": task_id}).result
        if got.get("status") != "working" or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def test_a_list_result_of_a_call_gone_on_as_a_task_is_stored_for_every_reader(tmp_path: Path) -> None:
    with serve(build(tmp_path)) as url:
        wire = Wire(url + "mcp", caps=TASK_CAPS)
        task = wire.call("tools/call", {"name": "curve", "arguments": {"n": 50}}).result
        assert task["resultType"] == "task", task
        here = ended(wire, task["taskId"])
        with serve(build(tmp_path)) as other:  # another server on the same job store (a worker, a restart)
            there = ended(Wire(other + "mcp", caps=TASK_CAPS), task["taskId"])
    assert here["status"] == "completed", here
    assert there["status"] == "completed", there
    assert there["result"]["content"] == here["result"]["content"]
    assert "24.5" in there["result"]["content"][0]["text"], there["result"]


def test_a_result_over_one_event_of_a_call_gone_on_as_a_task_is_its_real_result(tmp_path: Path) -> None:
    rows = 2_000  # about 4 MB with its structured content: over the client's 1 MiB for one event
    with serve(build(tmp_path)) as url:
        wire = Wire(url + "mcp", caps=TASK_CAPS)
        reply = wire.call("tools/call", {"name": "table", "arguments": {"rows": rows}, "_meta": {"progressToken": 7}})
        assert [n.get("method") for n in reply.notifications] == ["notifications/progress"]  # its stream opened
        got = ended(wire, reply.result["taskId"])
    assert got["status"] == "completed", str(got)[:300]
    assert not got["result"].get("isError"), str(got["result"])[:300]
    assert got["result"]["structuredContent"] == {"rows": ["r" * 1000] * rows}
