"""``job_executor="submit"`` against a stand-in for nanoHUB's ``submit`` (tests/hpc/standin/submit,
written to the hub's documentation; the real client exists only on a hub).

A tool returns the run to make (a ``SubmitRun``); the executor turns the server's and the tool's
options into ``submit``'s arguments, its ``=SUBMIT-PROGRESS=>`` lines into the job's progress
(kept with it for polls; no notification after the job handle: trial 18, F4), a parameter sweep
into one result per combination (parameters, status, stdout, the files each run wrote as embedded
resources), a cancel into an interrupt that stops the run, and a failed run into an error naming it
with its stderr.

Issue 25, "Done when": tests with the stand-in submit: options → arguments, progress, sweep
results, kill, a failed run's message.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from jobs.job_server import Routes, wait_until
from support import mcp_client, running, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError, RegistrationError
from nanohubmcp.nanohub import SubmitRun
from nanohubmcp.server.executors.submit_run import command_line

SIM = r"""
import os, sys, time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
steps = int(args.get("--steps", "1"))
if args.get("--fail"):
    print("sim: the mesh is singular at node 17", file=sys.stderr)
    sys.exit(3)
if args.get("--pidfile"):
    open(args["--pidfile"], "w").write(str(os.getpid()))
for i in range(steps):
    print(f"step {i}", flush=True)
    time.sleep(float(args.get("--sleep", "0.2")))
with open("out.dat", "w") as f:
    f.write(f"cap={args.get('--cap', '-')} scale={os.environ.get('SCALE', '-')}\n")
print("done", args.get("--cap", ""))
"""


@pytest.fixture
def sim(tmp_path: Path) -> Path:
    path = tmp_path / "sim.py"
    path.write_text(SIM)
    return path


def build(state: Path, sim: Path, **options: Any) -> MCPServer:
    server = MCPServer("submit-tests", state_dir=str(state), job_executor="submit", **options)

    @server.async_tool()
    def simulate(steps: int = 1, cap: str = "1pf", fail: bool = False) -> SubmitRun:
        """One simulation run."""
        argv = [sys.executable, str(sim), "--steps", str(steps), "--cap", cap]
        return SubmitRun(argv + (["--fail", "1"] if fail else []), env={"SCALE": "2"}, walltime="0:05:00")

    @server.async_tool()
    def sweep(caps: list[str]) -> SubmitRun:
        """One run per capacitance."""
        return SubmitRun([sys.executable, str(sim), "--cap", "@@cap"], parameters={"cap": caps}, outputs=["*.dat"])

    @server.async_tool()
    def endless(pidfile: str) -> list[str]:
        """Runs until stopped (the command alone, as a list)."""
        return [sys.executable, str(sim), "--steps", "1000", "--sleep", "0.1", "--pidfile", pidfile]

    return server


def test_options_become_submit_arguments(tmp_path: Path) -> None:
    options = {
        "venue": "standin-cluster",
        "cores": 8,
        "ppn": 4,
        "walltime": 30,
        "env": {"OMP_NUM_THREADS": "2"},
        "inputs": ["mesh.in"],
        "manager": "mpich",
    }
    run = SubmitRun(
        ["sim", "--cap", "@@cap", "--v", "@@v"],
        parameters={"cap": ["10pf", "1,5pf"], "v": "0:0.5:1"},
        inputs=["@:deck.in", "/abs/data.csv"],
        env={"SCALE": "2"},
        walltime="01:00:00",
        local=True,
    )
    assert command_line(run, options, tmp_path) == [
        "submit",
        "--progress",
        "submit",
        "--runName=mcprun",
        "-v",
        "standin-cluster",
        "-n",
        "8",
        "-N",
        "4",
        "-w",
        "01:00:00",
        "-m",
        "mpich",
        "-e",
        "OMP_NUM_THREADS=2",
        "-e",
        "SCALE=2",
        "-i",
        str(tmp_path / "mesh.in"),
        "-i",
        f"@:{tmp_path / 'deck.in'}",
        "-i",
        "/abs/data.csv",
        "-s",
        ";",
        "-p",
        "@@cap=10pf;1,5pf",
        "-p",
        "@@v=0:0.5:1",
        "--local",
        "sim",
        "--cap",
        "@@cap",
        "--v",
        "@@v",
    ]
    with pytest.raises(ConfigurationError, match="walltime must be minutes or hh:mm:ss"):
        command_line(SubmitRun(["sim"], walltime="soon"), {}, tmp_path)
    with pytest.raises(ConfigurationError, match=r"unknown submit executor option.*venu.*the options are venue"):
        MCPServer("x", job_executor="submit", executor_options={"venu": "workspace"})
    server = MCPServer("x", job_executor="threads")
    with pytest.raises(RegistrationError, match=r"tool 'f'.*cores must be a positive whole number"):
        server.async_tool(name="f", executor="submit", executor_options={"cores": 0})(lambda: ["true"])


@pytest.mark.anyio
async def test_a_run_reports_progress_and_returns_its_stdout_and_files(
    standin_submit: Path, sim: Path, tmp_path: Path
) -> None:
    seen: list[Any] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/progress":
            seen.append(root.params)

    server = build(tmp_path, sim, executor_options={"venue": "workspace", "cores": 2})
    with serve(server) as url:
        async with mcp_client(url + "mcp", message_handler=on_message) as client:
            handle = await client.call_tool("simulate", {"steps": 2}, progress_callback=lambda *a: None)
            job_id = handle.structured_content["job_id"]
            answer = await poll(client, job_id)
            raw = await client.call_tool("get_job_result", {"job_id": job_id})
    assert answer["status"] == "done", answer
    result = answer["result"]
    assert result["exit_code"] == 0
    assert result["stdout"].splitlines() == ["step 0", "step 1", "done 1pf"]
    assert result["files"] == ["out.dat"]
    [argv] = [json.loads(p.read_text()) for p in standin_submit.iterdir()]
    assert argv[:3] == ["--progress", "submit", "--runName=mcprun"]
    assert argv[3:11] == ["-v", "workspace", "-n", "2", "-w", "0:05:00", "-e", "SCALE=2"]
    assert seen == []  # the call answered with its job handle: its token names no notification after it
    query = "SELECT progress, progress_total, progress_message, progress_updates FROM jobs WHERE id = ?"
    with sqlite3.connect(tmp_path / "jobs.sqlite3") as db:
        stored = db.execute(query, (job_id,)).fetchone()
    # 0 %, the run executing (still 0 %: its counts kept all the same, trial78) and 100 %, kept with the job
    assert stored == (100.0, 100.0, "submit: 1 finished of 1 run", 3)
    assert raw.structured_content["result"] == result  # get_job_result reads the stored structured content


def test_a_sweep_is_one_job_with_one_result_per_combination(standin_submit: Path, sim: Path, tmp_path: Path) -> None:
    with serve(build(tmp_path, sim)) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(
            session, "tools/call", {"name": "sweep", "arguments": {"caps": ["10pf", "100pf", "1uf"]}, "task": {}}
        )
        task_id = reply["result"]["task"]["taskId"]
        result = routes.rpc(session, "tasks/result", {"taskId": task_id})["result"]  # waits for the end
    runs = result["structuredContent"]["runs"]
    assert [(r["id"], r["status"], r["parameters"]) for r in runs] == [
        (1, "finished", {"cap": "10pf"}),
        (2, "finished", {"cap": "100pf"}),
        (3, "finished", {"cap": "1uf"}),
    ]
    assert [r["stdout"].splitlines()[-1] for r in runs] == ["done 10pf", "done 100pf", "done 1uf"]
    assert [r["files"] for r in runs] == [["out.dat"]] * 3
    files = [b["resource"] for b in result["content"] if b["type"] == "resource"]
    assert [f["text"] for f in files] == ["cap=10pf scale=-\n", "cap=100pf scale=-\n", "cap=1uf scale=-\n"]
    assert [f["uri"].rsplit("/", 3)[-3:] for f in files] == [
        ["mcprun", "01", "out.dat"],
        ["mcprun", "02", "out.dat"],
        ["mcprun", "03", "out.dat"],
    ]
    assert result["content"][0]["text"].startswith("3 of 3 runs finished")


def test_cancelling_interrupts_submit_and_stops_the_run(standin_submit: Path, sim: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "run.pid"
    with serve(build(tmp_path, sim)) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(
            session, "tools/call", {"name": "endless", "arguments": {"pidfile": str(pidfile)}, "task": {}}
        )
        task_id = reply["result"]["task"]["taskId"]
        pid = int(wait_until(lambda: pidfile.exists() and pidfile.read_text(), "the run to start"))
        assert routes.rpc(session, "tasks/cancel", {"taskId": task_id})["result"]["status"] == "cancelled"
        wait_until(lambda: not running(pid), "the run to stop", 20)
        assert routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]["status"] == "cancelled"


def test_a_failed_run_and_a_refused_venue_fail_saying_why(standin_submit: Path, sim: Path, tmp_path: Path) -> None:
    server = build(tmp_path, sim)

    @server.async_tool(executor_options={"venue": "nowhere-cluster"})
    def elsewhere() -> list[str]:
        """Asks for a venue the hub does not have."""
        return ["true"]

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        failed = finish(routes, "simulate", {"fail": True})
        refused = finish(routes, "elsewhere", {})
    assert failed["status"] == "error"
    assert failed["error"].startswith("submit failed (exit code 1)")
    assert "sim: the mesh is singular at node 17" in failed["error"]
    assert refused["status"] == "error"
    assert "unknown venue 'nowhere-cluster'" in refused["error"]


def finish(routes: Routes, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    job_id = routes.rest_start(tool, arguments)[1]["job_id"]
    return wait_until(
        lambda: (routes.rest_poll(job_id)[1] or {}).get("status") != "running" and routes.rest_poll(job_id)[1],
        f"{tool} to end",
        60,
    )


async def poll(client: Any, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        answer = (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content
        if answer["status"] != "running":
            return answer
        assert time.monotonic() < deadline, answer
        time.sleep(0.05)


def test_an_output_file_over_max_inline_bytes_is_a_resource_link(
    standin_submit: Path, sim: Path, tmp_path: Path
) -> None:
    with serve(build(tmp_path, sim, max_inline_bytes=10)) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(session, "tools/call", {"name": "simulate", "arguments": {"cap": "5pf"}, "task": {}})
        result = routes.rpc(session, "tasks/result", {"taskId": reply["result"]["task"]["taskId"]})["result"]
        # (at max_inline_bytes=10 the tool's data is linked too, as a direct call links it: result.json)
        [link] = [b for b in result["content"] if b["type"] == "resource_link" and b["name"] == "out.dat"]
        read = routes.rpc(session, "resources/read", {"uri": link["uri"]})["result"]
    assert not [b for b in result["content"] if b["type"] == "resource"]
    assert read["contents"][0]["text"] == "cap=5pf scale=2\n"


def test_a_run_going_on_at_kill_9_is_collected_by_the_restarted_server(standin_submit: Path, tmp_path: Path) -> None:
    state, marker = tmp_path / "state", tmp_path / "go"
    first = SubmitServer(state)
    try:
        job_id = first.rest_start("wait_for_file", {"path": str(marker)})[1]["job_id"]
        wait_until(lambda: list(standin_submit.iterdir()), "submit to start")
    finally:
        first.kill()
    second = SubmitServer(state)
    try:
        assert second.rest_poll(job_id)[1]["status"] == "running"  # taken back: submit goes on
        marker.write_text("go")
        answer = wait_until(
            lambda: (second.rest_poll(job_id)[1] or {}).get("status") != "running" and second.rest_poll(job_id)[1],
            "the run's result",
            60,
        )
    finally:
        second.stop()
    assert answer["status"] == "done", answer
    assert answer["result"]["stdout"] == f"found {marker}"


class SubmitServer(Routes):
    """``submit_server.py`` in a subprocess (killable with SIGKILL)."""

    def __init__(self, state: Path) -> None:
        import re
        import subprocess

        self.log = state.parent / f"server-{time.monotonic_ns()}.log"
        state.mkdir(exist_ok=True)
        with self.log.open("wb") as sink:
            self.proc = subprocess.Popen(
                [sys.executable, "-u", str(Path(__file__).parent / "submit_server.py"), str(state)],
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        found = wait_until(lambda: re.search(r"listening on [^\s:]+:(\d+)", self.log.read_text()), "the banner")
        super().__init__(int(found.group(1)))

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(15)
