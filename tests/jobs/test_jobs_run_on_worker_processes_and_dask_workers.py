"""``job_executor="processes"`` and ``"dask"``: the tool runs in another process (a pool process,
a worker of a real ``distributed.LocalCluster``), its ``ctx.report_progress`` reaches the server
(every step stored with the job, where polls read it; the official client, which got the job
handle, gets no notification with the finished call's token), a cancel from the client stops it
there, and its result lands in the job store. A Dask job running when the server is killed is
taken back by the restarted server, result included. A function the process pool cannot pickle
fails saying so.

Issue 16, "Done when": a real LocalCluster with worker processes: a job's tool runs in a worker
process (different pid), its progress reaches the server (trial 18, F4: not the client after the
handle), cancel stops it, the result is
stored; a job running at kill -9 → re-attached result (Dask).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from job_server import Routes, ServerProcess, wait_until
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

STEPS = 4


def simulate(steps: int, ctx: Context) -> dict:
    """Report each step, then answer with the pid that ran it."""
    for step in range(1, steps + 1):
        ctx.report_progress(step, steps, f"step {step}")
    return {"steps": steps, "pid": os.getpid()}


def until_cancelled(marker: str, ctx: Context) -> str:
    """Write this process's pid to ``marker``, run until cancelled, then write 'stopped' there."""
    Path(marker).write_text(str(os.getpid()))
    deadline = time.monotonic() + 60
    while not ctx.is_cancelled() and time.monotonic() < deadline:
        time.sleep(0.02)
    Path(marker).write_text("stopped" if ctx.is_cancelled() else "timed out")
    return "done"


def tqdm_loop(steps: int, marker: str) -> str:
    """A tqdm bar over ``steps``, holding at the third until ``marker`` exists (no ``ctx``)."""
    from tqdm import tqdm

    for step in tqdm(range(steps), mininterval=0):
        deadline = time.monotonic() + 60
        while step == 3 and not Path(marker).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    return "done"


def when_told(marker: str, fail: bool) -> str:
    """Wait until ``marker`` exists, then answer (or raise, with ``fail``)."""
    deadline = time.monotonic() + 60
    while not Path(marker).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    if fail:
        raise ValueError("told to fail")
    return "done"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """One real LocalCluster for the module: one worker process, two threads."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as local, \
            Client(local, set_as_default=False) as client:
        local.worker_pids = set(client.run(os.getpid).values())
        yield local


def build(state: Path, **options: Any) -> MCPServer:
    server = MCPServer("executors", state_dir=str(state), **options)
    server.async_tool()(simulate)
    server.async_tool()(until_cancelled)
    server.async_tool()(when_told)
    server.async_tool()(tqdm_loop)
    return server


async def run_with_progress(url: str) -> tuple[dict[str, Any], list[Any], str]:
    seen: list[Any] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/progress":
            seen.append(root.params)

    async with mcp_client(url + "mcp", message_handler=on_message) as client:
        handle = await client.call_tool("simulate", {"steps": STEPS}, progress_callback=lambda *a: None)
        job_id = handle.structured_content["job_id"]
        answer = handle.structured_content
        deadline = time.monotonic() + 60
        while answer["status"] == "running":
            assert time.monotonic() < deadline, (answer, seen)
            time.sleep(0.05)
            answer = (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content
    return answer, seen, job_id


def stored_status(state: Path, job_id: str) -> tuple[Any, ...]:
    db = sqlite3.connect(state / "jobs.sqlite3")
    query = "SELECT status, executor, progress, progress_updates FROM jobs WHERE id = ?"
    return db.execute(query, (job_id,)).fetchone()


@pytest.mark.anyio
async def test_a_dask_job_runs_on_a_worker_reports_progress_and_is_stored(cluster: Any, tmp_path: Path) -> None:
    server = build(tmp_path, job_executor="dask", dask_address=cluster.scheduler_address)
    with serve(server) as url:
        answer, progress, job_id = await run_with_progress(url)
    assert answer["status"] == "done"
    assert answer["result"]["pid"] in cluster.worker_pids
    assert answer["result"]["pid"] != os.getpid()
    assert progress == []  # the call answered with its handle: no notification names its token after it
    assert stored_status(tmp_path, job_id) == ("completed", "dask", 4.0, STEPS)  # every step reached the server


def test_cancelling_a_dask_job_stops_it_on_the_worker(cluster: Any, tmp_path: Path) -> None:
    server = build(tmp_path, job_executor="dask", dask_address=cluster.scheduler_address)
    marker = tmp_path / "marker"
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(session, "tools/call",
                           {"name": "until_cancelled", "arguments": {"marker": str(marker)}, "task": {}})
        task_id = reply["result"]["task"]["taskId"]
        pid = int(wait_until(lambda: marker.exists() and marker.read_text(), "the job to start on the worker"))
        assert pid in cluster.worker_pids
        cancelled = routes.rpc(session, "tasks/cancel", {"taskId": task_id})["result"]
        assert cancelled["status"] == "cancelled"
        wait_until(lambda: marker.read_text() == "stopped", "the worker to see the cancel")
    assert stored_status(tmp_path, task_id)[:2] == ("cancelled", "dask")


def test_a_dask_job_is_published_while_it_runs_and_withdrawn_when_it_ends_failed_or_not(
        cluster: Any, tmp_path: Path) -> None:
    # The publication keeps a job on the scheduler for a restarted server; once the job's end is
    # stored it must go, or the scheduler keeps every result (a failed job's publication stayed).
    from distributed import Client

    server = build(tmp_path, job_executor="dask", dask_address=cluster.scheduler_address)
    with serve(server) as url, Client(cluster.scheduler_address, set_as_default=False) as client:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        for fail, status in ((False, "done"), (True, "error")):
            marker = tmp_path / f"go-{fail}"
            started, body = routes.rest_start("when_told", {"marker": str(marker), "fail": fail})
            assert started == 202, body
            key = "nanohubmcp-job-" + body["job_id"]
            wait_until(lambda: key in client.list_datasets(), "the job's publication")  # noqa: B023
            marker.write_text("go")
            answer = wait_until(lambda: routes.rest_poll(body["job_id"])[1]["status"] != "running"  # noqa: B023
                                and routes.rest_poll(body["job_id"])[1], "the job's end")  # noqa: B023
            assert answer["status"] == status, answer
            wait_until(lambda: key not in client.list_datasets(), "the publication withdrawn")  # noqa: B023


def test_a_stopping_server_withdraws_the_publications_of_the_jobs_that_ended(cluster: Any, tmp_path: Path) -> None:
    # Ended jobs are let go of together a moment later; a server that stops meanwhile does it at once.
    from distributed import Client

    server = build(tmp_path, job_executor="dask", dask_address=cluster.scheduler_address)
    marker = tmp_path / "go"
    marker.write_text("go")
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        with serve(server) as url:
            routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
            started, body = routes.rest_start("when_told", {"marker": str(marker), "fail": False})
            assert started == 202, body
            answer = wait_until(lambda: routes.rest_poll(body["job_id"])[1]["status"] != "running"
                                and routes.rest_poll(body["job_id"])[1], "the job's end")
            assert answer["status"] == "done", answer
        assert "nanohubmcp-job-" + body["job_id"] not in client.list_datasets()


@pytest.mark.anyio
async def test_a_process_job_runs_in_a_pool_process_and_reports_progress(tmp_path: Path) -> None:
    server = build(tmp_path, job_executor="processes", job_workers=1)
    with serve(server) as url:
        answer, progress, job_id = await run_with_progress(url)
    assert answer["status"] == "done"
    assert answer["result"]["pid"] != os.getpid()
    assert progress == []
    assert stored_status(tmp_path, job_id) == ("completed", "processes", 4.0, STEPS)


def a_tqdm_bar_is_the_jobs_progress(state: Path, executor: str, **options: Any) -> None:
    """A job's tqdm bar reads back from polls (the third step while it holds there), and its last step is stored."""
    marker = state / "go"
    with serve(build(state, job_executor=executor, **options)) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        status, body = routes.rest_start("tqdm_loop", {"steps": 10, "marker": str(marker)})
        assert status == 202, body
        job_id = body["job_id"]
        polled = wait_until(lambda: (a := routes.rest_poll(job_id)[1]).get("progress", {}).get("progress") == 3 and a,
                            "the bar's third step")
        assert polled["progress"] == {"progress": 3, "total": 10, "message": "3/10"}, polled
        marker.write_text("go")
        done = wait_until(lambda: (a := routes.rest_poll(job_id)[1])["status"] != "running" and a, "the job's end")
        assert done["status"] == "done", done
    assert stored_status(state, job_id)[:3] == ("completed", executor, 10.0)


def test_a_tqdm_bar_in_a_process_job_is_its_progress(tmp_path: Path) -> None:
    # trial76 F1: a processes job's bar was drawn on the server's stderr, and every poll carried no progress.
    a_tqdm_bar_is_the_jobs_progress(tmp_path, "processes", job_workers=1)


def test_a_tqdm_bar_in_a_dask_job_is_its_progress(cluster: Any, tmp_path: Path) -> None:
    a_tqdm_bar_is_the_jobs_progress(tmp_path, "dask", dask_address=cluster.scheduler_address)


@pytest.mark.anyio
async def test_a_function_the_pool_cannot_pickle_fails_saying_so(tmp_path: Path) -> None:
    server = MCPServer("unpicklable", state_dir=str(tmp_path), job_executor="processes", job_workers=1)

    @server.async_tool()
    def local_function() -> int:
        """Defined inside a function: not importable by a pool process."""
        return 1

    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            job_id = (await client.call_tool("local_function", {})).structured_content["job_id"]
            answer = await client.call_tool("get_job_result", {"job_id": job_id})
            while answer.structured_content["status"] == "running":
                time.sleep(0.05)
                answer = await client.call_tool("get_job_result", {"job_id": job_id})
    assert answer.structured_content["status"] == "error"
    assert "cannot be pickled" in answer.structured_content["error"]
    assert "module level" in answer.structured_content["error"]


def test_a_dask_job_running_at_kill_9_is_taken_back_with_its_result(cluster: Any, tmp_path: Path) -> None:
    state, marker = tmp_path / "state", tmp_path / "go"
    first = ServerProcess(state, "dask", cluster.scheduler_address)
    try:
        status, body = first.rest_start("wait_for_file", {"path": str(marker)})
        assert status == 202, body
        job_id = body["job_id"]
        wait_until(lambda: (stored_status(state, job_id) or (0, 0, 0, 0))[3] > 0, "progress from the worker")
    finally:
        first.kill()
    marker.write_text("go")  # the job, still on the cluster, may finish now
    second = ServerProcess(state, "dask", cluster.scheduler_address)
    try:
        answer = wait_until(lambda: second.rest_poll(job_id)[1]["status"] != "running" and second.rest_poll(job_id),
                            "the job to be taken back")
        assert answer[0] == 200
        assert answer[1]["status"] == "done", answer
        assert answer[1]["result"]["found"] == str(marker)
        assert answer[1]["result"]["pid"] in cluster.worker_pids
    finally:
        second.stop()
    assert stored_status(state, job_id)[0] == "completed"


def test_a_dask_job_running_at_stop_is_taken_back_by_the_next_start_in_the_same_process(
        cluster: Any, tmp_path: Path) -> None:
    """server.stop() leaves a Dask job to the cluster; start() again in the same process (%mcp stop,
    %mcp start) takes it back with its result. (It answered "running" for ever: the record named this
    process's runner, so it was taken for a job this process still followed.)"""
    from distributed import Client

    server = build(tmp_path, job_executor="dask", dask_address=cluster.scheduler_address)
    marker = tmp_path / "go"
    with serve(server) as url, Client(cluster.scheduler_address, set_as_default=False) as client:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        status, body = routes.rest_start("when_told", {"marker": str(marker), "fail": False})
        assert status == 202, body
        job_id = body["job_id"]
        wait_until(lambda: "nanohubmcp-job-" + job_id in client.list_datasets(), "the job's publication")
        assert routes.rest_poll(job_id)[1]["status"] == "running"
    assert stored_status(tmp_path, job_id)[0] == "working"  # left to the cluster
    marker.write_text("go")
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        answer = wait_until(lambda: (a := routes.rest_poll(job_id)[1])["status"] != "running" and a,
                            "the job to be taken back")
        assert answer == {"status": "done", "job_id": job_id, "result": "done"}, answer
    assert stored_status(tmp_path, job_id)[0] == "completed"


def test_without_a_scheduler_a_local_cluster_starts_on_first_use_and_stops_with_the_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    # Choosing the executor imports nothing of Dask; the first job does.
    lazy = subprocess.run(
        [sys.executable, "-c", "import sys; from nanohubmcp import MCPServer; MCPServer('x', job_executor='dask'); "
         "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"],
        capture_output=True, text=True, timeout=60, check=True)
    assert lazy.stdout.strip() == "[]"

    server = build(tmp_path, job_executor="dask")
    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        status, body = routes.rest_start("simulate", {"steps": 1})
        assert status == 202, body
        answer = wait_until(lambda: (routes.rest_poll(body["job_id"])[1] or {}).get("result"), "the job")
        runner = server.core.job_service.runners.runner_for("dask")
        assert runner._cluster is not None  # the executor's own LocalCluster
    pid = answer["pid"]
    assert pid != os.getpid()
    assert runner._cluster is None

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_until(gone, "the local cluster's worker process to end")
