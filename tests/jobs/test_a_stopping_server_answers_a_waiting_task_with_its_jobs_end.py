"""At SIGTERM, a ``threads`` job (``@async_tool``) is told to cancel at once: one that looks ends, and a client
waiting in ``tasks/result`` gets the job's end ("the server stopped while this job ran"), as an ``async def``
job's waiter does; the stop line counts tool calls, not jobs (trial46 T46-12: the job was told only once the
2 s drain was over, its waiter answered "The server is stopping ... may be retried", and the line said
"waiting for 1 running tool call(s)" of the job's thread). A real server in a process of its own."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

import pytest
from job_server import Routes
from support import script_server, wait_until

pytestmark = pytest.mark.timeout(90)

STOPPED = "the server stopped while this job ran"

SCRIPT = """
import sys, time
from pathlib import Path
from nanohubmcp import Context, MCPServer

folder = Path(sys.argv[1])
server = MCPServer("stops", state_dir=str(folder / "state"))

@server.middleware
async def seen(request, call_next):
    if request.method == "tasks/result":
        (folder / "waiting").touch()
    return await call_next(request)

@server.async_tool()
def looks(ctx: Context) -> str:
    '''Runs until cancelled.'''
    (folder / "started").touch()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if ctx.is_cancelled():
            (folder / "cancelled").touch()
            return "cancelled"
        time.sleep(0.02)
    return "ran to its end"

@server.async_tool()
def ignores() -> str:
    '''Runs until the file go exists, cancelled or not.'''
    (folder / "started").touch()
    deadline = time.monotonic() + 60
    while not (folder / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "went"

server.run(host="127.0.0.1", port=0)
"""


def _start_task(routes: Routes, tool: str, folder: Path) -> tuple[str, str]:
    session = routes.session()
    reply = routes.rpc(session, "tools/call", {"name": tool, "arguments": {}, "task": {"ttl": 600000}})
    wait_until(lambda: (folder / "started").exists(), "the job to run", 30)
    return session, reply["result"]["task"]["taskId"]


def test_a_waiting_tasks_result_gets_the_end_of_a_threads_job_that_looked(tmp_path: Path) -> None:
    with script_server(SCRIPT, str(tmp_path), directory=tmp_path) as served:
        routes = Routes(int(served.url.rsplit(":", 1)[1].strip("/")))
        session, task_id = _start_task(routes, "looks", tmp_path)
        answers: list[Any] = []
        waiter = threading.Thread(target=lambda: answers.append(routes.rpc(session, "tasks/result",
                                                                            {"taskId": task_id})))
        waiter.start()
        wait_until(lambda: (tmp_path / "waiting").exists(), "tasks/result to wait", 30)
        served.process.send_signal(signal.SIGTERM)
        waiter.join(30)
        assert answers, "tasks/result was not answered"
        result = answers[0].get("result")
        assert result is not None, answers[0]  # not -32000 "The server is stopping ... may be retried"
        assert result["isError"] is True, result
        assert result["content"] == [{"type": "text", "text": STOPPED}], result
        assert (tmp_path / "cancelled").exists()  # the function saw its cancel and returned
        assert served.process.wait(30) == 0, served.output
        assert "running tool call(s)" not in served.output
        assert "running job(s)" not in served.output  # it had ended: nothing to wait for


def test_the_stop_line_counts_a_job_that_runs_on_as_a_job_not_a_tool_call(tmp_path: Path) -> None:
    with script_server(SCRIPT, str(tmp_path), directory=tmp_path) as served:
        routes = Routes(int(served.url.rsplit(":", 1)[1].strip("/")))
        _start_task(routes, "ignores", tmp_path)
        served.process.send_signal(signal.SIGTERM)
        line = wait_until(lambda: next((line for line in served.output.splitlines() if "stopped; waiting" in line),
                                       None), "the stop line", 30)  # fmt: skip
        assert "waiting for 1 running job(s) to return" in line, line
        assert "tool call" not in line, line
        (tmp_path / "go").touch()
        assert served.process.wait(30) == 0, served.output
