"""At SIGTERM, a ``threads`` job (``@async_tool``) is told to cancel at once: one that looks ends, and a client
waiting in ``tasks/result`` gets the job's end ("the server stopped while this job ran: it did not complete;
it may be run again"), as an ``async def``
job's waiter does; the stop line counts tool calls, not jobs (trial46 T46-12: the job was told only once the
2 s drain was over, its waiter answered "The server is stopping ... may be retried", and the line said
"waiting for 1 running tool call(s)" of the job's thread). Over stdio too, at SIGTERM or the end of input (a
job of either kind was settled only after the drain there). A real server in a process of its own."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from job_server import Routes
from support import script_server, wait_until

pytestmark = pytest.mark.timeout(90)

STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"

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
"""
HTTP = SCRIPT + 'server.run(host="127.0.0.1", port=0)\n'
STDIO = SCRIPT + 'server.run(transport="stdio")\n'


def _start_task(routes: Routes, tool: str, folder: Path) -> tuple[str, str]:
    session = routes.session()
    reply = routes.rpc(session, "tools/call", {"name": tool, "arguments": {}, "task": {"ttl": 600000}})
    wait_until(lambda: (folder / "started").exists(), "the job to run", 30)
    return session, reply["result"]["task"]["taskId"]


def test_a_waiting_tasks_result_gets_the_end_of_a_threads_job_that_looked(tmp_path: Path) -> None:
    with script_server(HTTP, str(tmp_path), directory=tmp_path) as served:
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
    with script_server(HTTP, str(tmp_path), directory=tmp_path) as served:
        routes = Routes(int(served.url.rsplit(":", 1)[1].strip("/")))
        _start_task(routes, "ignores", tmp_path)
        served.process.send_signal(signal.SIGTERM)
        line = wait_until(lambda: next((line for line in served.output.splitlines() if "stopped; waiting" in line),
                                       None), "the stop line", 30)  # fmt: skip
        assert "waiting for 1 running job(s) to return" in line, line
        assert "tool call" not in line, line
        (tmp_path / "go").touch()
        assert served.process.wait(30) == 0, served.output


@pytest.mark.parametrize("stop", ["SIGTERM", "end of input"])
def test_over_stdio_a_waiting_tasks_result_gets_the_end_of_a_threads_job_that_looked(tmp_path: Path,
                                                                                     stop: str) -> None:
    (tmp_path / "app.py").write_text(STDIO)
    proc = subprocess.Popen([sys.executable, str(tmp_path / "app.py"), str(tmp_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None
    assert stdout is not None
    lines: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(json.loads(line)) for line in stdout], daemon=True).start()

    def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        stdin.flush()

    def reply(request_id: int) -> Any:
        while (message := lines.get(timeout=30)).get("id") != request_id:
            pass
        return message

    try:
        send({"id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                           "clientInfo": {"name": "t", "version": "0"}}})
        reply(0)
        send({"method": "notifications/initialized"})
        send({"id": 1, "method": "tools/call", "params": {"name": "looks", "arguments": {}, "task": {"ttl": 600000}}})
        task_id = reply(1)["result"]["task"]["taskId"]
        wait_until(lambda: (tmp_path / "started").exists(), "the job to run", 30)
        send({"id": 2, "method": "tasks/result", "params": {"taskId": task_id}})
        wait_until(lambda: (tmp_path / "waiting").exists(), "tasks/result to wait", 30)
        if stop == "SIGTERM":
            proc.send_signal(signal.SIGTERM)
        else:
            stdin.close()
        answer = reply(2)
        result = answer.get("result")
        assert result is not None, answer  # not -32000 "The server is stopping ... may be retried"
        assert result["content"] == [{"type": "text", "text": STOPPED}], result
        assert (tmp_path / "cancelled").exists()
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
