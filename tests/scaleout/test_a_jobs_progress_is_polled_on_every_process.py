"""A running job's progress reaches a poll whichever process of the server answers it (records in a
shared Redis): ``get_job_result`` carries ``"progress": {"progress", "total", "message"}``.

Found by a fresh-scientist trial (trial 15, F3): a polled job answered only ``running``. Two
servers in this process sharing a real redis-server stand for two workers (each its own job store
and runner token); the job runs on the first, REST polls go to the second.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from jobs.job_server import Routes, wait_until
from redis_server import RedisServer
from support import serve

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(60)


def build(state_url: str, release: threading.Event) -> MCPServer:
    server = MCPServer("progress-everywhere", state_url=state_url)

    @server.async_tool()
    def sweep(steps: int, ctx: Context) -> dict:
        """Seven steps reported, then waits for the test."""
        ctx.report_progress(7, steps, "sweep 7")
        release.wait(30)
        return {"steps": steps}

    return server


def port_of(url: str) -> int:
    return int(url.rstrip("/").rsplit(":", 1)[1])


def test_a_poll_on_another_process_carries_the_jobs_progress(redis_server: RedisServer) -> None:
    release = threading.Event()
    try:
        with serve(build(redis_server.url, release)) as first, serve(build(redis_server.url, release)) as second:
            status, started = Routes(port_of(first)).rest_start("sweep", {"steps": 20})
            assert status == 202, started
            job_id = started["job_id"]
            other = Routes(port_of(second))

            def polled() -> dict[str, Any]:
                return dict(other.rest_poll(job_id)[1])

            answer = wait_until(lambda: "progress" in (a := polled()) and a, "the progress on the other process", 30)
            assert answer == {
                "status": "running",
                "job_id": job_id,
                "progress": {"progress": 7, "total": 20, "message": "sweep 7"},
            }
            release.set()
            done = wait_until(lambda: (a := polled())["status"] != "running" and a, "the job's end", 30)
            assert done == {"status": "done", "job_id": job_id, "result": {"steps": 20}}
    finally:
        release.set()
