"""A client that polls a running job learns how far it got: ``get_job_result`` carries the last
progress the job reported (``"progress": {"progress": 3, "total": 10, "message": "sweep 3"}``) and
a task's ``statusMessage`` says it (``"3/10 (30%) sweep 3"``), also when another process runs the job.

Found by a fresh-scientist trial (trial 15, F3): the running answer was ``{"status": "running",
"job_id": ...}`` for the whole run and the task's statusMessage named the Slurm job only, though the
server knew "10/60 sweep 10" (``%mcp jobs`` showed it); an SDK client drops the progress
notifications once the job handle came back, so polling was its only way to know.

Real servers: one in this process (threads executor; the official ``mcp`` client, raw 2025-11-25
``tasks/get``), and one in a subprocess that runs a job another server on the same state directory
is polled for.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from job_server import Routes, ServerProcess, wait_until
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.server.jobs.record import MAX_PROGRESS_MESSAGE


def build(state_dir: Path, release: threading.Event) -> MCPServer:
    server = MCPServer("progress-jobs", state_dir=str(state_dir))

    @server.async_tool()
    def sweep(steps: int, ctx: Context) -> dict:
        """Three steps of a sweep, then waits for the test."""
        for step in range(1, 4):
            ctx.report_progress(step, steps, f"sweep {step}")
        release.wait(60)
        return {"steps": steps}

    @server.async_tool()
    def chatty(ctx: Context) -> str:
        """Reports one very long progress message, then waits for the test."""
        ctx.report_progress(1, None, "x" * 5000)
        release.wait(60)
        return "done"

    return server


async def running_with_progress(client: Any, job_id: str) -> Any:
    with anyio.fail_after(30):
        while True:
            answer = await client.call_tool("get_job_result", {"job_id": job_id})
            if answer.structured_content.get("progress", {}).get("progress") == 3:
                return answer
            assert answer.structured_content["status"] == "running", answer
            await anyio.sleep(0.05)


@pytest.mark.anyio
async def test_get_job_result_and_tasks_get_carry_a_running_jobs_progress(tmp_path: Path) -> None:
    release = threading.Event()
    try:
        with serve(build(tmp_path, release)) as url:
            async with mcp_client(url + "mcp") as client:
                job_id = (await client.call_tool("sweep", {"steps": 10})).structured_content["job_id"]
                answer = await running_with_progress(client, job_id)
                assert answer.structured_content == {
                    "status": "running",
                    "job_id": job_id,
                    "progress": {"progress": 3, "total": 10, "message": "sweep 3"},
                }
                assert json.loads(answer.content[0].text) == answer.structured_content

                long_id = (await client.call_tool("chatty", {})).structured_content["job_id"]
                with anyio.fail_after(30):
                    while "progress" not in (
                        said := (await client.call_tool("get_job_result", {"job_id": long_id})).structured_content
                    ):
                        await anyio.sleep(0.05)
                message = said["progress"]["message"]
                assert len(message) == MAX_PROGRESS_MESSAGE
                assert message.endswith("…")
                assert said["progress"] == {"progress": 1, "message": message}  # no total: none reported

            routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
            session = routes.session()
            created = routes.rpc(
                session, "tools/call", {"name": "sweep", "arguments": {"steps": 10}, "task": {"ttl": 60000}}
            )
            task_id = created["result"]["task"]["taskId"]
            # the job reports 1/10, 2/10, 3/10 in quick succession: wait for the last, not the first seen
            task = wait_until(
                lambda: (
                    (t := routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]).get("statusMessage")
                    == "3/10 (30%) sweep 3" and t
                ),
                "the task's progress",
                30,
            )
            assert (task["status"], task["statusMessage"]) == ("working", "3/10 (30%) sweep 3")
            assert routes.rest_poll(job_id)[1]["progress"] == {"progress": 3, "total": 10, "message": "sweep 3"}
    finally:
        release.set()


def test_a_job_run_by_another_process_is_polled_with_its_progress(tmp_path: Path) -> None:
    state = tmp_path / "state"
    found = tmp_path / "found"
    runner = ServerProcess(state)  # runs the job: reports "waiting, step N" until `found` exists
    try:
        status, started = runner.rest_start("wait_for_file", {"path": str(found)})
        assert status == 202, started
        job_id = started["job_id"]
        with serve(build(state, threading.Event())) as url:  # another process's server, same state directory
            other = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
            polled = wait_until(lambda: "progress" in (a := other.rest_poll(job_id)[1]) and a, "progress elsewhere", 30)
            assert polled["status"] == "running", polled
            assert polled["progress"]["message"].startswith("waiting, step "), polled
            assert polled["progress"]["progress"] >= 1
            assert "total" not in polled["progress"]
        found.touch()
        done = wait_until(lambda: (a := runner.rest_poll(job_id)[1])["status"] != "running" and a, "the job's end", 30)
        assert done["status"] == "done", done
        assert "progress" not in done
    finally:
        runner.stop()
