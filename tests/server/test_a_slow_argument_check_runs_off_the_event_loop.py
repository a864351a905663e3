"""A tool's own argument check registered with ``check_off_loop=True`` (a Sim2L job tool's: pint converts
a large array's units, ~1.5 s for 700 kB) runs on a worker thread for every call, not only large ones:
the server answers other requests while it runs, and what it refuses is still refused before the job.

Here the check waits until another call has been answered: on the event loop it would wait forever
(nothing else is answered while it holds the loop), so the test would time out instead.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from jobs.job_server import Routes
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import InvalidArguments


def test_a_check_off_the_loop_lets_the_server_answer_others_meanwhile(tmp_path: Any) -> None:
    checking, pinged = threading.Event(), threading.Event()

    def check(arguments: dict[str, Any]) -> None:
        checking.set()
        if not pinged.wait(10):
            raise AssertionError("the ping was not answered while the check ran")
        if arguments["n"] < 0:
            raise InvalidArguments("Invalid arguments for tool 'slow': n: give a number of 0 or more")

    server = MCPServer("off-loop-check", state_dir=str(tmp_path))

    def slow(n: int) -> int:
        """Echo n, as a job."""
        return n

    def ping() -> str:
        """Answer at once."""
        pinged.set()
        return "pong"

    server.add_tool(slow, background=True, check_arguments=check, check_off_loop=True)
    server.add_tool(ping)
    with serve(server) as url, ThreadPoolExecutor(1) as pool:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        refused = pool.submit(routes.rest_start, "slow", {"n": -1})
        assert checking.wait(20), "the check never started"
        status, body = routes.rest_start("ping", {})  # answered while the check waits
        assert status == 200, body
        status, body = refused.result(30)
        assert status == 400, body
        assert body["error"] == "Invalid arguments for tool 'slow': n: give a number of 0 or more"
        assert "job_id" not in body, body
        assert server.core.job_service.jobs.listing() == []
