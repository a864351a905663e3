"""Cancelling a job on the ``processes`` executor ends its process and frees its slot.

Found by a fresh user (trial F3): on the process pool a cancelled job was marked cancelled but
its worker kept running the function — for ever for a CPU loop that never looks at
``ctx.is_cancelled()`` — so each cancel took a slot for good and ``job_workers`` cancels starved
the executor. Now a job's process, with what it started, gets ``SIGTERM`` (a ``ctx`` tool first
gets a moment to see the cancel), then ``SIGKILL``; the next job runs in the freed slot and no
other job is touched (a pool whose worker is killed fails every job it holds). A notebook cell
redefined after a job ran runs its new body in the next job.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from job_server import Routes, wait_until
from support import FAULTHANDLER, process_fields, running, serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.server.executors.job_process import JobProcess

GONE_WITHIN = 10.0
"""Seconds a cancelled job's process may take to be gone (1 s cooperative, 1 s after SIGTERM)."""


def spin(marker: str) -> int:
    """A CPU loop that never looks at a cancel: write this pid, then count for ever."""
    Path(marker).write_text(str(os.getpid()))
    n = 0
    while True:
        n += 1


def stubborn(marker: str) -> int:
    """The same loop, ignoring SIGTERM."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return spin(marker)


def with_a_child(marker: str) -> int:
    """Start a program (a simulator stand-in that ignores SIGTERM), write its pid, then loop."""
    child = subprocess.Popen(["/bin/sh", "-c", "trap '' TERM; while :; do sleep 1; done"])
    Path(marker + ".child").write_text(str(child.pid))
    return spin(marker)


def polite(marker: str, ctx: Context) -> str:
    """Write this pid, wait for the cancel, then write 'stopped' and return."""
    Path(marker).write_text(str(os.getpid()))
    while not ctx.is_cancelled():
        time.sleep(0.01)
    Path(marker).write_text("stopped")
    return "stopped"


def when_told(marker: str) -> int:
    """Write this pid to ``marker``, wait until ``marker + '.go'`` exists, then answer the pid."""
    Path(marker).write_text(str(os.getpid()))
    while not Path(marker + ".go").exists():
        time.sleep(0.01)
    return os.getpid()


async def coroutine_pid() -> int:
    """A coroutine tool: its pid, after a turn of its own event loop."""
    await asyncio.sleep(0)
    return os.getpid()


def cpu_ticks(pid: int) -> int:
    fields = process_fields(pid)
    assert fields is not None, f"process {pid} is gone"
    return int(fields[11]) + int(fields[12])  # utime + stime


def build(state: Path, workers: int) -> MCPServer:
    server = MCPServer("cancels", state_dir=str(state), job_executor="processes", job_workers=workers)
    for fn in (spin, stubborn, with_a_child, polite, when_told, coroutine_pid):
        server.async_tool()(fn)
    return server


def routes_of(url: str) -> Routes:
    return Routes(int(url.rsplit(":", 1)[1].strip("/")))


def start_task(routes: Routes, session: str, tool: str, marker: Path) -> tuple[str, int]:
    """Start ``tool(marker)`` as a task; its id and the pid it wrote to ``marker``."""
    reply = routes.rpc(session, "tools/call", {"name": tool, "arguments": {"marker": str(marker)}, "task": {}})
    return reply["result"]["task"]["taskId"], started_pid(marker)


def started_pid(marker: Path) -> int:
    return int(wait_until(lambda: marker.exists() and marker.read_text(), f"the job writing {marker.name}"))


def cancel_and_wait(routes: Routes, session: str, task_id: str, pid: int) -> None:
    """Cancel the task and wait for its process to be gone."""
    cancelled = routes.rpc(session, "tasks/cancel", {"taskId": task_id})["result"]
    assert cancelled["status"] == "cancelled"
    wait_until(lambda: not running(pid), "the cancelled job's process to be gone", GONE_WITHIN)


def finished(routes: Routes, job_id: str) -> dict[str, Any]:
    return wait_until(lambda: routes.rest_poll(job_id)[1]["status"] != "running" and routes.rest_poll(job_id)[1],
                      "the job's end")


def test_a_cancelled_cpu_loop_ends_and_the_job_waiting_for_its_slot_runs(tmp_path: Path) -> None:
    with serve(build(tmp_path, workers=1)) as url:
        routes = routes_of(url)
        session = routes.session()
        task_id, pid = start_task(routes, session, "spin", tmp_path / "spin")
        assert pid != os.getpid()
        ticks = cpu_ticks(pid)
        wait_until(lambda: cpu_ticks(pid) > ticks, "the loop to burn CPU")
        status, queued = routes.rest_start("coroutine_pid", {})  # queued for the one slot
        assert status == 202, queued
        assert routes.rest_poll(queued["job_id"])[1]["status"] == "running"
        cancel_and_wait(routes, session, task_id, pid)
        answer = finished(routes, queued["job_id"])
        assert answer["status"] == "done", answer
        assert isinstance(answer["result"], int), answer  # a number, as the tool returned it
        assert answer["result"] not in (pid, os.getpid())
        assert routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]["status"] == "cancelled"


def test_a_job_ignoring_sigterm_is_killed(tmp_path: Path) -> None:
    with serve(build(tmp_path, workers=1)) as url:
        routes = routes_of(url)
        session = routes.session()
        cancel_and_wait(routes, session, *start_task(routes, session, "stubborn", tmp_path / "stubborn"))


def test_what_the_job_started_ends_with_it(tmp_path: Path) -> None:
    marker = tmp_path / "parent"
    with serve(build(tmp_path, workers=1)) as url:
        routes = routes_of(url)
        session = routes.session()
        task_id, pid = start_task(routes, session, "with_a_child", marker)
        child = started_pid(Path(str(marker) + ".child"))
        cancel_and_wait(routes, session, task_id, pid)
        wait_until(lambda: not running(child), "the job's own child to be gone", GONE_WITHIN)


def test_a_ctx_tool_sees_the_cancel_and_returns_before_any_signal(tmp_path: Path) -> None:
    marker = tmp_path / "polite"
    with serve(build(tmp_path, workers=1)) as url:
        routes = routes_of(url)
        session = routes.session()
        cancel_and_wait(routes, session, *start_task(routes, session, "polite", marker))
    assert marker.read_text() == "stopped"


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="the executor runs at most cpu_count jobs at once")
def test_cancelling_one_job_leaves_the_other_running_job_alone(tmp_path: Path) -> None:
    other = tmp_path / "other"
    with serve(build(tmp_path, workers=2)) as url:
        routes = routes_of(url)
        session = routes.session()
        status, kept = routes.rest_start("when_told", {"marker": str(other)})
        assert status == 202, kept
        kept_pid = started_pid(other)
        cancel_and_wait(routes, session, *start_task(routes, session, "spin", tmp_path / "spin"))
        assert running(kept_pid)
        Path(str(other) + ".go").touch()
        answer = finished(routes, kept["job_id"])
        assert answer == {"status": "done", "job_id": kept["job_id"], "result": kept_pid}


def test_an_answer_that_comes_after_the_cancel_is_dropped_quietly(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The waiting thread resolved a future the job's cancel had cancelled: InvalidStateError there.
    raised: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", raised.append)
    marker = tmp_path / "late"
    freed: list[JobProcess] = []
    run = JobProcess(multiprocessing.get_context("fork"), "late-answer", freed.append)
    future = run.start(when_told, {"marker": str(marker)}, False, None)
    started_pid(marker)
    assert future.cancel()
    Path(str(marker) + ".go").touch()
    wait_until(run.ended.is_set, "the job's process to end")
    assert freed == [run]
    assert raised == []


NOTEBOOK = r"""
import contextlib, io, json, sys, time, urllib.request
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
def ok(code):
    with contextlib.redirect_stdout(io.StringIO()):
        result = shell.run_cell(code)
    assert result.success, (code, result.error_before_exec or result.error_in_exec)
    return result.result

ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
define = "%%mcp_tool --async --executor processes\ndef version() -> int:\n    'Which body ran.'\n    return {}\n"
ok(define.format(1))
base = ok("%mcp url")[: -len("mcp")]

def rest(name, arguments):
    request = urllib.request.Request(base + "tools/" + name, data=json.dumps(arguments).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())

def run(name):
    job = rest(name, {})["job_id"]
    deadline = time.monotonic() + 60
    while (answer := rest("get_job_result", {"job_id": job}))["status"] == "running":
        assert time.monotonic() < deadline, answer
        time.sleep(0.05)
    return answer

answers = [run("version")]
ok(define.format(2))
answers.append(run("version"))
ok("%unload_ext nanohubmcp")
print(json.dumps(answers))
"""


def test_a_notebook_cell_redefined_after_a_job_runs_its_new_body(tmp_path: Path) -> None:
    env = {"IPYTHONDIR": str(tmp_path), "PATH": "/usr/bin:/bin", "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"),
           "MCP_TOKEN": "", "PYTHONPATH": os.environ.get("PYTHONPATH", ""), **FAULTHANDLER}
    done = subprocess.run([sys.executable, "-c", NOTEBOOK], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    assert [answer["status"] for answer in answers] == ["done", "done"], answers
    assert [answer["result"] for answer in answers] == [1, 2]
