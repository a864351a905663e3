"""A job of a Rappture or Sim2L tool served with ``--async`` whose program (or kernel) the server's stop
killed (SIGTERM) ends ``failed``, saying the server stopped while it ran and that it may be run again —
never ``cancelled``: nobody cancelled it. A server restarted on the same state directory answers so by
every route: ``tasks/get`` and ``tasks/result`` (2025-11-25 task), the official client's
``get_job_result`` (a job handle), REST. The stop says nothing on the server's stderr of its own: no
"tool ... failed", no traceback, and not nbclient's "Kernel died while waiting for execute reply.",
which Python printed there for every Sim2L kernel a stop (or a cancel) killed. Real ``nanohubmcp
rappture`` / ``nanohubmcp sim2l`` processes, the official client, a real SIGTERM.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from jobs.job_server import Routes
from sim2l.cooling_variant import cooling_variant
from sources.test_a_tool_run_the_stop_ends_is_answered_as_the_stopping_servers import FERMI, _serve
from support import mcp_client, wait_until

STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"


async def _job(port: int, tool: str, arguments: dict[str, Any]) -> str:
    """Start ``tool`` with the official client: its job handle's id."""
    async with mcp_client(f"http://127.0.0.1:{port}/mcp") as client:
        handle = (await client.call_tool(tool, arguments)).structured_content
    assert handle is not None
    assert handle["status"] == "running", handle
    return str(handle["job_id"])


async def _polled(port: int, job_id: str) -> dict[str, Any]:
    async with mcp_client(f"http://127.0.0.1:{port}/mcp") as client:
        answer = (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content
    assert answer is not None
    return answer


def _stopped_mid_run(command: list[str], folder: Path, tool: str, arguments: list[dict[str, Any]],
                     running: Any) -> tuple[str, str, str]:
    """Serve ``command`` (state in ``folder``), start ``tool`` as a task and as a job handle (with the first
    and the second ``arguments``: two runs, not one run's claim waited for); once
    ``running(routes, session, task_id)`` is true, SIGTERM the server. Returns the task's id, the job's id
    and the stopped server's stderr."""
    process, log, port = _serve(command, folder)
    try:
        routes = Routes(port)
        session = routes.session()
        reply = routes.rpc(session, "tools/call", {"name": tool, "arguments": arguments[0], "task": {"ttl": 600000}})
        task_id = reply["result"]["task"]["taskId"]
        job_id = anyio.run(_job, port, tool, arguments[1])
        wait_until(lambda: running(routes, session, task_id), f"the {tool} runs", 120)
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
    return task_id, job_id, log.read_text(errors="replace")


def _assert_failed_after_a_restart(command: list[str], folder: Path, task_id: str, job_id: str) -> None:
    """A server restarted on ``folder``'s state answers the task and the job as failed by the stop."""
    (folder / "stderr.log").rename(folder / "first-stderr.log")
    process, _, port = _serve(command, folder)
    try:
        routes = Routes(port)
        session = routes.session()
        task = routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]
        assert (task["status"], task.get("statusMessage")) == ("failed", STOPPED), task
        result = routes.rpc(session, "tasks/result", {"taskId": task_id})["result"]
        assert (result.get("isError"), result["content"]) == (True, [{"type": "text", "text": STOPPED}])
        assert anyio.run(_polled, port, job_id) == {"status": "error", "job_id": job_id, "error": STOPPED}
        assert routes.rest_poll(job_id) == (200, {"status": "error", "job_id": job_id, "error": STOPPED})
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


def _assert_quiet(stderr: str, tool: str) -> None:
    assert f"tool '{tool}' failed" not in stderr, stderr
    assert "was cancelled" not in stderr, stderr
    assert "Traceback" not in stderr, stderr
    assert "Kernel died" not in stderr, stderr


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_rappture_job_whose_program_the_stop_kills_fails_saying_the_server_stopped(tmp_path: Path) -> None:
    command = ["rappture", str(FERMI), "--async"]

    def running(routes: Routes, session: str, task_id: str) -> bool:  # the program's progress line: it waits
        task = routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]
        return "Waiting forever" in (task.get("statusMessage") or "")

    calls = [{"mode": "hang"}, {"mode": "hang", "points": 11}]
    task_id, job_id, stderr = _stopped_mid_run(command, tmp_path, "fermi", calls, running)
    _assert_quiet(stderr, "fermi")
    _assert_failed_after_a_restart(command, tmp_path, task_id, job_id)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_sim2l_job_whose_kernel_the_stop_kills_fails_saying_the_server_stopped(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    pids = tmp_path / "kernels"
    pids.mkdir()
    path = cooling_variant(tmp_path, "import os, time\n"
                                     f"open(os.path.join({str(pids)!r}, str(os.getpid())), 'w').close()\n"
                                     "time.sleep(600)\n")
    command = ["sim2l", str(path), "--async"]

    def running(routes: Routes, session: str, task_id: str) -> bool:  # both kernels are in their sleeping cell
        return len(list(pids.iterdir())) == 2

    task_id, job_id, stderr = _stopped_mid_run(command, tmp_path, "cooling", [{"points": 17}, {"points": 18}], running)
    _assert_quiet(stderr, "cooling")
    _assert_failed_after_a_restart(command, tmp_path, task_id, job_id)
