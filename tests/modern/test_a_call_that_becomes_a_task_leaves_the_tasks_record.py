"""A 2026-07-28 call that turns into a task part-way (``ctx.start_task()``) leaves one provenance
record of the task's work, like a task started as one: the ``CreateTaskResult`` names it, it says
``working`` while the task runs and, once the task ends, ``completed`` with the task's result (not
the ``CreateTaskResult`` the call answered with) and the task's id. The task's progress is kept with
it, as a job's is (the operator's listing shows it).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from modern_wire import TASK_CAPS, Wire
from support import serve

from nanohubmcp import Context, MCPServer

META = "io.nanohub/provenance"
GO = threading.Event()


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[MCPServer, Wire]]:
    server = MCPServer("becomes-a-task", job_store="memory")

    @server.tool(task_support="optional")
    def measure(samples: int, ctx: Context) -> dict[str, int]:
        """Goes on as a task, then waits for the test's go."""
        ctx.start_task("measuring")
        ctx.report_progress(1, 2, "half way")
        GO.wait(30)
        return {"samples": samples, "sum": samples * (samples + 1) // 2}

    with serve(server) as base:
        yield server, Wire(base + "mcp", caps=TASK_CAPS)


def read_record(wire: Wire, uri: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(wire.call("resources/read", {"uri": uri}).result["contents"][0]["text"])
    return record


def test_the_record_of_a_call_that_became_a_task_is_the_tasks(served: tuple[MCPServer, Wire]) -> None:
    server, wire = served
    created = wire.call("tools/call", {"name": "measure", "arguments": {"samples": 10}}).result
    assert created["resultType"] == "task", created
    task_id, uri = created["taskId"], created["_meta"][META]
    working = read_record(wire, uri)
    assert (working["status"], working["job_id"]) == ("working", task_id), working
    deadline = time.monotonic() + 10
    while not (listed := [j for j in server.core.job_service.jobs.listing() if j["id"] == task_id and j["progress"]]):
        assert time.monotonic() < deadline, server.core.job_service.jobs.listing()
        time.sleep(0.05)
    assert (listed[0]["progress"], listed[0]["progress_total"], listed[0]["progress_message"]) == (1, 2, "half way")
    GO.set()
    while (task := wire.call("tasks/get", {"taskId": task_id}).result)["status"] == "working":
        assert time.monotonic() < deadline, task
        time.sleep(0.05)
    assert task["status"] == "completed", task
    assert task["result"]["structuredContent"] == {"samples": 10, "sum": 55}
    assert task["result"]["_meta"][META] == uri
    record = read_record(wire, uri)
    assert (record["status"], record["job_id"]) == ("completed", task_id), record
    assert record["result"]["structuredContent"] == {"samples": 10, "sum": 55}, record
