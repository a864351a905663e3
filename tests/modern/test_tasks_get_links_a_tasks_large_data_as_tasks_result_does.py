"""``tasks/get`` of the 2026-07-28 tasks extension answers a completed task's data over ``max_inline_bytes`` as
``tasks/result`` and ``get_job_result`` do — a note with a preview, then a ``resource_link`` to all of it, the
very copy they link (one URI per job) — while a tool with an output schema is answered whole (its structured
content is promised) and data larger than the store keeps is a tool error naming the sizes. So does the last
``notifications/tasks`` of a ``subscriptions/listen`` naming the task.

Before: ``tasks/get`` put the job's stored result whole into its ``result`` (~200 KB for ~100 KB of numbers: the
text and the structured content) into the model's context; so did the listen's notification of the task's end.

A real server, raw 2026-07-28 requests over HTTP (``modern_wire``: the official ``mcp`` client has no tasks
extension), the kept copy read back with ``resources/read``.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from modern_wire import ALL_CAPS, TASK_CAPS, Wire
from support import serve

from nanohubmcp import MCPServer

LIMIT = 4096
DATA = {"y": list(range(18_000))}  # ~100 KB of JSON
LET_GO = threading.Event()
SCHEMA = {"type": "object", "properties": {"y": {"type": "array"}}, "required": ["y"]}


def build(**options: Any) -> MCPServer:
    server = MCPServer("task-data", max_inline_bytes=LIMIT, job_store="memory", **options)
    server.async_tool(name="big_dict", description="About 100 KB of data.")(lambda: DATA)
    server.async_tool(name="schematic", description="About 100 KB of data.", output_schema=SCHEMA)(lambda: DATA)
    server.async_tool(name="small", description="A little data.")(lambda: {"y": [1, 2, 3]})

    @server.async_tool()
    def held_big() -> dict[str, Any]:
        """About 100 KB of data, once the test lets it go."""
        assert LET_GO.wait(30)
        return DATA

    return server


def completed(wire: Wire, tool: str) -> tuple[str, dict[str, Any]]:
    """The task id of a call of ``tool`` and its ``DetailedTask`` once ``tasks/get`` says it completed."""
    created = wire.call("tools/call", {"name": tool, "arguments": {}}).result
    assert created["resultType"] == "task", created
    task_id = created["taskId"]
    deadline = time.monotonic() + 30
    while (task := wire.call("tasks/get", {"taskId": task_id}).result)["status"] != "completed":
        assert task["status"] == "working", task
        assert time.monotonic() < deadline, f"task {task_id} never completed: {task}"
        time.sleep(0.05)
    return task_id, task


def linked_uri(task: dict[str, Any]) -> str:
    result = task["result"]
    assert [block["type"] for block in result["content"]] == ["text", "resource_link"], result
    assert "structuredContent" not in result
    assert len(json.dumps(task)) < 2000
    note, link = result["content"]
    assert f"larger than max_inline_bytes ({LIMIT})" in note["text"]
    assert link["uri"] in note["text"]
    return str(link["uri"])


def test_tasks_get_links_the_copy_tasks_result_and_get_job_result_link() -> None:
    with serve(build()) as base:
        tasks, plain = Wire(base + "mcp", caps=TASK_CAPS), Wire(base + "mcp", caps=ALL_CAPS)
        task_id, task = completed(tasks, "big_dict")
        uri = linked_uri(task)
        assert linked_uri(tasks.call("tasks/get", {"taskId": task_id}).result) == uri  # kept once
        polled = plain.call("tools/call", {"name": "get_job_result", "arguments": {"job_id": task_id}}).result
        assert polled["content"][-1]["uri"] == uri
        read = tasks.call("resources/read", {"uri": uri}).result
        assert json.loads(read["contents"][0]["text"]) == DATA


def test_a_tool_with_an_output_schema_and_small_data_are_answered_whole() -> None:
    with serve(build()) as base:
        tasks = Wire(base + "mcp", caps=TASK_CAPS)
        assert completed(tasks, "schematic")[1]["result"]["structuredContent"] == DATA
        assert completed(tasks, "small")[1]["result"]["structuredContent"] == {"y": [1, 2, 3]}


def test_data_larger_than_the_store_keeps_is_a_tool_error_naming_the_sizes() -> None:
    with serve(build(max_kept_bytes=50_000)) as base:
        result = completed(Wire(base + "mcp", caps=TASK_CAPS), "big_dict")[1]["result"]
        assert result["isError"] is True
        assert "more than the server keeps for large results (50000)" in result["content"][0]["text"]


def test_a_listens_last_notification_links_the_same_copy() -> None:
    LET_GO.clear()
    with serve(build()) as base:
        tasks = Wire(base + "mcp", caps=TASK_CAPS)
        task_id = tasks.call("tools/call", {"name": "held_big", "arguments": {}}).result["taskId"]
        with tasks.listen("subscriptions/listen", {"notifications": {"taskIds": [task_id]}}) as stream:
            assert stream.next(timeout=10)["method"] == "notifications/subscriptions/acknowledged"
            LET_GO.set()
            told = stream.next(timeout=20)
            while told is not None and told["params"]["status"] != "completed":
                told = stream.next(timeout=20)
        assert told is not None, "no notification of the task's end"
        uri = linked_uri(told["params"])
        assert linked_uri(tasks.call("tasks/get", {"taskId": task_id}).result) == uri
