"""``server.stop()`` and ``server.start()`` in one process (a notebook's ``%mcp stop`` and ``%mcp
start``) end every session, as a restart of the process does: each start is a runner of its own,
so a job of an earlier start is read by its id from any session or REST, like a job of an earlier
process — whether it finished before the stop, ran on through it (a threads job) or was ended by
it (a processes job). While one start serves, a session's job stays that session's.

Before the runner token was per start, a job that had *finished* before the stop answered "not
found" to everyone after the start: its session was gone, and only jobs the stop ended or handed
over were let through (by their stored message).
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from pathlib import Path

from streams.stream_wire import Wire
from support import serve, wait_until

from nanohubmcp import MCPServer

STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"


def cube(n: int) -> dict:
    """n cubed (module level, for the ``processes`` executor)."""
    return {"cube": n ** 3}


def wait_here(path: str) -> str:
    """Run until ``path`` exists (module level, for the ``processes`` executor)."""
    while not os.path.exists(path):
        time.sleep(0.05)
    return "found"


def poll(wire: Wire, session: str, job_id: str) -> dict:
    answer = wire.request("tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}}, session)
    return json.loads(answer["result"]["content"][0]["text"])


def start(wire: Wire, session: str, tool: str, arguments: dict) -> str:
    answer = wire.request("tools/call", {"name": tool, "arguments": arguments}, session)
    return json.loads(answer["result"]["content"][0]["text"])["job_id"]


def rest(url: str, job_id: str) -> dict:
    request = urllib.request.Request(url + "tools/get_job_result", json.dumps({"job_id": job_id}).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def test_every_job_of_an_earlier_start_is_read_by_id_and_only_its_session_reads_it_before(tmp_path: Path) -> None:
    release, running = threading.Event(), threading.Event()
    server = MCPServer("runs", state_dir=str(tmp_path / "state"))

    @server.async_tool()
    def square(n: int) -> dict:
        """n squared, on a worker thread."""
        return {"square": n * n}

    @server.async_tool()
    def held(n: int) -> dict:
        """Runs until the test releases it (on a worker thread)."""
        running.set()
        release.wait(30)
        return {"held": n}

    server.async_tool(executor="processes")(cube)
    server.async_tool(executor="processes")(wait_here)
    try:
        with serve(server) as url:
            wire = Wire(url)
            mine, other = wire.initialize(), wire.initialize()
            ids = {
                "thread done": start(wire, mine, "square", {"n": 3}),
                "process done": start(wire, mine, "cube", {"n": 2}),
                "thread running": start(wire, mine, "held", {"n": 5}),
                "process running": start(wire, mine, "wait_here", {"path": str(tmp_path / "never")}),
            }
            wait_until(lambda: poll(wire, mine, ids["thread done"])["status"] == "done", "the thread job is done", 30)
            wait_until(lambda: poll(wire, mine, ids["process done"])["status"] == "done", "the process job is done", 30)
            assert running.wait(10)
            assert poll(wire, mine, ids["process running"])["status"] == "running"
            for job_id in ids.values():  # another session of the same start: not its job
                assert poll(wire, other, job_id)["status"] == "not_found"
        with serve(server) as url:
            wire = Wire(url)
            fresh = wire.initialize()
            assert poll(wire, fresh, ids["thread done"]) == {
                "status": "done", "job_id": ids["thread done"], "result": {"square": 9}}
            assert poll(wire, fresh, ids["process done"]) == {
                "status": "done", "job_id": ids["process done"], "result": {"cube": 8}}
            assert poll(wire, fresh, ids["process running"]) == {
                "status": "error", "job_id": ids["process running"], "error": STOPPED}
            assert poll(wire, fresh, ids["thread running"])["status"] == "running"
            release.set()
            done = wait_until(lambda: (p := poll(wire, fresh, ids["thread running"]))["status"] == "done" and p,
                              "the held job is done", 30)
            assert done["result"] == {"held": 5}
            assert rest(url, ids["thread done"]) == {"status": "done", "job_id": ids["thread done"],
                                                     "result": {"square": 9}}
            # Jobs of this start are again their session's only.
            late = start(wire, fresh, "square", {"n": 4})
            wait_until(lambda: poll(wire, fresh, late)["status"] == "done", "the late job is done", 30)
            assert poll(wire, wire.initialize(), late)["status"] == "not_found"
    finally:
        release.set()
