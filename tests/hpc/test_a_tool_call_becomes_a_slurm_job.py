"""``job_executor="slurm"`` on a real single-node Slurm (scripts/slurm-single-node).

A tool call becomes a Slurm batch job (visible to ``sacct``, named after the tool), runs on the
node in a process of its own, and the official client sees it move — queued with its Slurm job
id, running on the node, ended — and gets the tool's ``ctx.info`` while it runs; its
``ctx.report_progress`` and tqdm progress reach the server (kept with the job, where polls read them;
no notification names the call's token after its job handle: trial 18, F4). What the tool raises
is the error's text; a cancel from the client ends the Slurm job ``CANCELLED``; resources from
``executor_options`` (server and tool) reach ``sbatch``; ``sbatch`` refusing the job (an unknown
partition) is a clear error.

Issue 25, "Done when": a tool call becomes a Slurm job visible in squeue/sacct, runs on the node as
a separate process, its progress reaches the server (the client polls it), cancel leaves it CANCELLED.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cloudpickle
import pytest
from jobs.job_server import Routes, wait_until
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

# The tools below travel to the compute node by value (the node cannot import this test module).
cloudpickle.register_pickle_by_value(sys.modules[__name__])

STEPS = 3


def simulate(steps: int, ctx: Context) -> dict:
    """Report and log each step; answer with where it ran."""
    for step in range(1, steps + 1):
        ctx.report_progress(step, steps, f"step {step}")
        ctx.info(f"finished step {step}")
        time.sleep(0.7)  # running for > 2 s: two of the watcher's squeue looks (1 s apart) see it on its node
    return {"pid": os.getpid(), "slurm_job_id": os.environ.get("SLURM_JOB_ID"), "cwd": os.getcwd()}


def count_with_tqdm(n: int) -> int:
    """A tqdm loop and nothing else: its bar is the call's progress."""
    from tqdm import tqdm

    for _ in tqdm(range(n), mininterval=0):
        time.sleep(0.05)
    return n


def deck_missing() -> str:
    """Raises the way a simulation wrapper does."""
    raise FileNotFoundError("the input deck sim.in is missing")


def until_cancelled(marker: str, ctx: Context) -> str:
    """Write this job's Slurm id to ``marker``, then run until cancelled (at most a minute)."""
    Path(marker).write_text(os.environ.get("SLURM_JOB_ID", "?"))
    deadline = time.monotonic() + 60
    while not ctx.is_cancelled() and time.monotonic() < deadline:
        time.sleep(0.05)
    return "stopped" if ctx.is_cancelled() else "not cancelled"


def sacct(slurm_id: str) -> dict[str, str]:
    out = subprocess.run(
        ["sacct", "-X", "-n", "-P", "-j", slurm_id, "-o", "JobName,State,NodeList"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout.strip()
    name, state, node = (out.splitlines() or ["||"])[0].split("|")
    return {"name": name, "state": state.split()[0] if state else "", "node": node}


def build(state: Path, **options: Any) -> MCPServer:
    server = MCPServer("slurm-tests", state_dir=str(state), job_executor="slurm", **options)
    for fn in (simulate, count_with_tqdm, deck_missing, until_cancelled):
        server.async_tool()(fn)
    return server


async def call_and_wait(client: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    handle = await client.call_tool(tool, arguments, progress_callback=lambda *a: None)
    job_id = handle.structured_content["job_id"]
    deadline = time.monotonic() + 90
    while True:
        answer = (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content
        if answer["status"] != "running":
            return answer
        assert time.monotonic() < deadline, answer
        time.sleep(0.1)


def stored_progress(state: Path, job_id: str) -> tuple[Any, ...]:
    """The last progress of a job and how many reports reached the server, from its store."""
    query = "SELECT progress, progress_total, progress_message, progress_updates FROM jobs WHERE id = ?"
    with sqlite3.connect(state / "jobs.sqlite3") as db:
        row: tuple[Any, ...] = db.execute(query, (job_id,)).fetchone()
    return row


@pytest.mark.anyio
async def test_a_call_runs_as_a_slurm_job_on_the_node_and_the_client_sees_it_move(
    slurm_cluster: str, tmp_path: Path
) -> None:
    seen: list[Any] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) in ("notifications/progress", "notifications/message"):
            seen.append((root.method, root.params))

    with serve(build(tmp_path)) as url:
        async with mcp_client(url + "mcp", message_handler=on_message) as client:
            await client.set_logging_level("info")
            answer = await call_and_wait(client, "simulate", {"steps": STEPS})
            counted = await call_and_wait(client, "count_with_tqdm", {"n": 5})
            failed = await call_and_wait(client, "deck_missing", {})

    assert answer["status"] == "done", answer
    result = answer["result"]
    assert result["pid"] != os.getpid()
    slurm_id = result["slurm_job_id"]
    assert slurm_id.isdigit()
    assert Path(result["cwd"]).parent == tmp_path / "slurm-jobs"  # the job's own folder is its working dir
    expected = {"name": "mcp-simulate", "state": "COMPLETED", "node": slurm_cluster}
    wait_until(lambda: sacct(slurm_id) == expected, "sacct to record the job", 30)  # accounting lags a moment

    texts = [p.data if isinstance(p.data, str) else p.data["message"] for m, p in seen if m == "notifications/message"]
    moves = [t for t in texts if f" job {slurm_id} " in f"{t} "]
    assert moves[0].startswith(f"queued at Slurm as job {slurm_id}")
    assert f"Slurm job {slurm_id} is running on node {slurm_cluster}" in moves
    assert moves[-1] == f"Slurm job {slurm_id} ended: COMPLETED"
    assert [t for t in texts if t.startswith("finished step")] == [
        "finished step 1",
        "finished step 2",
        "finished step 3",
    ]
    assert [p for m, p in seen if m == "notifications/progress"] == []  # the calls answered with their handles
    assert stored_progress(tmp_path, answer["job_id"]) == (3, 3, "step 3", STEPS)  # every step reached the server
    assert (counted["status"], counted["result"]) == ("done", 5)  # a number reads as the number
    assert stored_progress(tmp_path, counted["job_id"])[0] == 5  # the tqdm bar's last count

    assert failed["status"] == "error"
    assert failed["error"] == "the input deck sim.in is missing"
    # trial66 F2: Slurm records COMPLETED (submitit caught the exception); the end's line says the tool raised
    # (it said "ended: COMPLETED" alone, just before the error)
    raised = [t for t in texts if t.endswith(" ended: COMPLETED (the tool raised an error: the input deck sim.in "
                                             "is missing)")]
    assert len(raised) == 1, texts
    assert raised[0].split(" ended:")[0] + " ended: COMPLETED" not in texts, texts


def test_cancelling_the_call_scancels_the_slurm_job(slurm_cluster: str, tmp_path: Path) -> None:
    marker = tmp_path / "started"
    with serve(build(tmp_path)) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(
            session, "tools/call", {"name": "until_cancelled", "arguments": {"marker": str(marker)}, "task": {}}
        )
        task_id = reply["result"]["task"]["taskId"]
        slurm_id = wait_until(lambda: marker.exists() and marker.read_text(), "the job to start on the node", 90)
        squeue = ["squeue", "-h", "-j", slurm_id, "-o", "%T"]
        assert subprocess.run(squeue, capture_output=True, text=True, timeout=30).stdout.strip() == "RUNNING"
        cancelled = routes.rpc(session, "tasks/cancel", {"taskId": task_id})["result"]
        assert cancelled["status"] == "cancelled"
        wait_until(lambda: sacct(slurm_id)["state"] == "CANCELLED", "Slurm to record the cancel", 60)

        def slurm_state() -> str:
            task = routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]
            assert task["status"] == "cancelled"
            return str(task["_meta"]["org.nanohub/slurm"]["state"])

        # The task's metadata follows Slurm to the end (trial 5, F6: it stayed "RUNNING").
        wait_until(lambda: slurm_state() == "CANCELLED", "the task's metadata to say CANCELLED", 30)


def test_resources_from_the_server_and_the_tool_reach_sbatch(slurm_cluster: str, tmp_path: Path) -> None:
    server = build(tmp_path, executor_options={"slurm": {"partition": "debug", "time": "0:10:00", "mem": "100M"}})

    @server.async_tool(executor_options={"time": 3, "cpus_per_task": 1, "sbatch": {"comment": "from-a-tool"}})
    def sized() -> str:
        """Answers with its job id."""
        return os.environ.get("SLURM_JOB_ID", "")

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        status, body = routes.rest_start("sized", {})
        assert status == 202, body
        answer = wait_until(
            lambda: (
                routes.rest_poll(body["job_id"])[1].get("status") != "running" and routes.rest_poll(body["job_id"])[1]
            ),
            "the job",
            90,
        )
    assert answer["status"] == "done", answer
    script = (tmp_path / "slurm-jobs" / body["job_id"] / f"{answer['result']}_submission.sh").read_text()
    for line in (
        "#SBATCH --partition=debug",
        "#SBATCH --time=3",
        "#SBATCH --mem=100M",
        "#SBATCH --cpus-per-task=1",
        "#SBATCH --comment=from-a-tool",
        "#SBATCH --job-name=mcp-sized",
    ):
        assert line in script.splitlines(), (line, script)


def test_options_slurm_refuses_are_clear_errors(slurm_cluster: str, tmp_path: Path) -> None:
    from nanohubmcp.errors import ConfigurationError, RegistrationError

    with pytest.raises(ConfigurationError, match=r"unknown slurm executor option.*partiton.*the options are partition"):
        MCPServer("x", job_executor="slurm", executor_options={"partiton": "debug"})
    with pytest.raises(ConfigurationError, match="not a Slurm time"):
        MCPServer("x", job_executor="slurm", executor_options={"time": "two hours"})
    server = build(tmp_path)
    with pytest.raises(RegistrationError, match=r"tool 'f'.*cpus_per_task must be a positive whole number"):
        server.async_tool(name="f", executor_options={"cpus_per_task": "many"})(lambda: 1)

    @server.async_tool(executor_options={"partition": "no-such-partition"})
    def nowhere() -> int:
        """Cannot be queued anywhere."""
        return 1

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        body = routes.rest_start("nowhere", {})[1]
        answer = wait_until(
            lambda: (
                routes.rest_poll(body["job_id"])[1].get("status") != "running" and routes.rest_poll(body["job_id"])[1]
            ),
            "the refusal",
            60,
        )
    assert answer["status"] == "error"
    assert answer["error"].startswith("sbatch refused the job: ")
    assert "invalid partition" in answer["error"].lower()


def test_a_job_slurm_no_longer_knows_ends_vanished(slurm_cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from nanohubmcp.server.executors import slurm_watch

    monkeypatch.setattr(slurm_watch, "SACCT_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(slurm_watch, "VANISHED_AFTER_SECONDS", 1.0)
    watch = slurm_watch.SlurmWatch(poll_interval=0.2)
    watch.add("999999")  # never submitted: neither squeue nor sacct lists it
    try:
        state = wait_until(lambda: watch.get("999999"), "the watcher to give up on the job", 30)
    finally:
        watch.discard("999999")
    assert state.state == "VANISHED"
    assert state.kind == slurm_watch.ENDED


def test_files_a_job_returns_come_back_as_content_and_large_ones_as_links(slurm_cluster: str, tmp_path: Path) -> None:
    server = MCPServer("slurm-files", state_dir=str(tmp_path), job_executor="slurm", max_inline_bytes=64)

    @server.async_tool()
    def write_outputs() -> list:
        """Writes a small and a large file in the job's folder and returns both."""
        Path("small.txt").write_text("energy=-1.5\n")
        Path("trajectory.csv").write_text("".join(f"C,{i},0,0\n" for i in range(100)))
        return [Path("small.txt"), Path("trajectory.csv")]

    @server.async_tool()
    def leak() -> Path:
        """Returns a file outside its folder."""
        return Path("/etc/hostname")

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(session, "tools/call", {"name": "write_outputs", "arguments": {}, "task": {}})
        result = routes.rpc(session, "tasks/result", {"taskId": reply["result"]["task"]["taskId"]})["result"]
        [embedded] = [b["resource"] for b in result["content"] if b["type"] == "resource"]
        [link] = [b for b in result["content"] if b["type"] == "resource_link"]
        read = routes.rpc(session, "resources/read", {"uri": link["uri"]})["result"]
        refused = routes.rpc(session, "tools/call", {"name": "leak", "arguments": {}, "task": {}})
        failed = routes.rpc(session, "tasks/result", {"taskId": refused["result"]["task"]["taskId"]})["result"]
    assert result["structuredContent"] == {"files": ["small.txt", "trajectory.csv"]}
    assert embedded["text"] == "energy=-1.5\n"
    assert embedded["uri"].endswith("/small.txt")
    assert link["name"] == "trajectory.csv"
    assert read["contents"][0]["text"].splitlines()[99] == "C,99,0,0"
    assert failed["isError"] is True
    assert "the job returned files outside its folder" in failed["content"][0]["text"]


def test_a_job_that_cannot_start_its_python_fails_with_slurms_state(slurm_cluster: str, tmp_path: Path) -> None:
    server = build(tmp_path)

    @server.async_tool(executor_options={"python": "/bin/false"})
    def broken() -> int:
        """Its job's Python command exits at once."""
        return 1

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        body = routes.rest_start("broken", {})[1]
        answer = wait_until(
            lambda: (
                routes.rest_poll(body["job_id"])[1].get("status") != "running" and routes.rest_poll(body["job_id"])[1]
            ),
            "Slurm to end the job",
            90,
        )
    assert answer["status"] == "error"
    assert answer["error"].startswith("Slurm job ")
    assert "failed (FAILED" in answer["error"]
    assert "before the tool returned" in answer["error"]
