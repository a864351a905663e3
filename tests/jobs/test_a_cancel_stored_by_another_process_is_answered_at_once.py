"""A task another process cancelled is ``cancelled`` on the process running it from that moment on.

MCP 2025-11-25, Basic § Utilities § Tasks § Task Cancellation: "once a task is cancelled, it MUST
remain in cancelled status". Seen once in CI (ci27, a three-process Redis cluster under load): a
``tasks/get`` on the process running the job answered ``working`` right after another process had
answered ``cancelled``, because the running process answered from its live job until the store's
word of the cancel arrived. With processes sharing a SQLite state directory that word is a look
every second (``jobs/cancel_look``), so the window is wide enough to test: two servers in this
process share one state directory, each with its own job store as a worker process has.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from modern.modern_wire import TASK_CAPS, Wire
from support import serve, wait_until

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(60)


def spin(ctx: Context, marker: str) -> str:
    """Mark the start, then run until cancelled (at most 30 s)."""
    Path(marker).write_text("started")
    deadline = time.monotonic() + 30
    while not ctx.is_cancelled() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "stopped" if ctx.is_cancelled() else "ran out"


@pytest.fixture
def two_processes(tmp_path: Path) -> Iterator[tuple[Wire, Wire]]:
    """Two servers sharing one state directory; stateless 2026-07-28 clients of each (a task of
    no session is read by its id on every process)."""
    with ExitStack() as stack:
        wires = []
        for _ in range(2):
            server = MCPServer("cancel-at-once", state_dir=str(tmp_path / "state"))
            server.async_tool()(spin)
            wires.append(Wire(stack.enter_context(serve(server)) + "mcp", caps=TASK_CAPS))
        yield wires[0], wires[1]


def test_the_running_process_answers_cancelled_right_after_another_stored_the_cancel(
    two_processes: tuple[Wire, Wire], tmp_path: Path
) -> None:
    owner, other = two_processes
    marker = tmp_path / "started"
    task_id = owner.call("tools/call", {"name": "spin", "arguments": {"marker": str(marker)}}).result["taskId"]
    wait_until(marker.exists, "the task started", 20)

    assert other.call("tasks/cancel", {"taskId": task_id}).result.keys() == {"resultType", "_meta"}
    assert other.call("tasks/get", {"taskId": task_id}).result["status"] == "cancelled"
    got = owner.call("tasks/get", {"taskId": task_id}).result  # before the owner's next look for cancels
    assert got["status"] == "cancelled", got
    wait_until(lambda: owner.call("tasks/get", {"taskId": task_id}).result["status"] == "cancelled"
               and other.call("tasks/get", {"taskId": task_id}).result["status"] == "cancelled",
               "both processes answer cancelled", 5)
