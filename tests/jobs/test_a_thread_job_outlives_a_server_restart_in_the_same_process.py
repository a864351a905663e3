"""A server stopped and started again in the same process (a notebook's ``%mcp stop`` +
``%mcp start``, or a setting change that restarts it) does not fail a thread job whose function
runs on: its result lands in the job store when it comes, and the restarted server — or a new
server on the same state directory — reads it."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from support import wait_until

from nanohubmcp import MCPServer


def build(state_dir: str, release: threading.Event, started: threading.Event) -> MCPServer:
    server = MCPServer("restart-in-process", state_dir=state_dir)

    @server.async_tool()
    def longjob(seconds: float) -> dict:
        """Runs until the test releases it."""
        started.set()
        release.wait(30)
        return {"done": seconds}

    return server


def status_of(server: MCPServer, job_id: str) -> dict:
    return server.call("get_job_result", {"job_id": job_id}).structured


def start_job(server: MCPServer, started: threading.Event) -> str:
    handle = server.call("longjob", {"seconds": 4}).structured
    assert handle["status"] == "running", handle
    assert started.wait(10)
    return handle["job_id"]


def assert_runs_then_finishes(server: MCPServer, job_id: str, release: threading.Event) -> None:
    assert status_of(server, job_id)["status"] == "running"
    release.set()
    done = wait_until(lambda: (s := status_of(server, job_id))["status"] != "running" and s, "the job ended", 20)
    assert done == {"status": "done", "job_id": job_id, "result": {"done": 4}}


@contextlib.contextmanager
def stopped_while_a_job_runs(state_dir: str) -> Iterator[tuple[MCPServer, str, threading.Event]]:
    """A server stopped while its job runs: yields the server, the job's id and the job's release."""
    release, started = threading.Event(), threading.Event()
    server = build(state_dir, release, started)
    server.start(host="127.0.0.1", port=0)
    try:
        job_id = start_job(server, started)
        server.stop()
        yield server, job_id, release
    finally:
        release.set()
        server.stop()


def test_stop_and_start_keeps_the_running_job_and_stores_its_result(tmp_path):
    with stopped_while_a_job_runs(str(tmp_path)) as (server, job_id, release):
        server.start(host="127.0.0.1", port=0)
        assert [j["status"] for j in server.core.job_service.jobs.listing()] == ["working"]
        assert_runs_then_finishes(server, job_id, release)


def test_a_job_that_ends_while_the_server_is_stopped_is_read_after_the_start(tmp_path):
    with stopped_while_a_job_runs(str(tmp_path)) as (server, job_id, release):
        release.set()
        stored = server.core.job_service.jobs.backend
        wait_until(lambda: stored.load(job_id)["status"] == "completed", "the job stored completed", 20)
        server.start(host="127.0.0.1", port=0)
        assert status_of(server, job_id) == {"status": "done", "job_id": job_id, "result": {"done": 4}}


def test_a_new_server_on_the_same_state_directory_reads_the_result(tmp_path):
    # A notebook builds a new server when the name or version changes.
    second = build(str(tmp_path), threading.Event(), threading.Event())
    with stopped_while_a_job_runs(str(tmp_path)) as (_, job_id, release):
        try:
            second.start(host="127.0.0.1", port=0)
            assert_runs_then_finishes(second, job_id, release)
        finally:
            second.stop()
