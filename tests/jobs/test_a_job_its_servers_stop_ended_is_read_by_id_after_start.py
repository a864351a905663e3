"""A ``processes`` job that a ``server.stop()`` ended (its process killed) is read by its id after
``server.start()`` in the same process — from a new session or REST — and answers "the server
stopped while this job ran"; its old session is gone with the stop. (A notebook's ``%mcp stop`` and
``%mcp start`` do this.) Found by a new user: the job answered "not found" to everyone.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from streams.stream_wire import Wire
from support import serve

from nanohubmcp import MCPServer

STOPPED = "the server stopped while this job ran"


def wait_here(path: str) -> str:
    """Run until ``path`` exists."""
    while not os.path.exists(path):
        time.sleep(0.05)
    return "found"


def poll(wire: Wire, session: str, job_id: str) -> dict:
    answer = wire.request("tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}}, session)
    return json.loads(answer["result"]["content"][0]["text"])


def test_the_stopped_job_is_read_by_id_from_a_new_session(tmp_path: Path) -> None:
    server = MCPServer("stop-start", job_executor="processes", state_dir=str(tmp_path / "state"))
    server.async_tool()(wait_here)
    with serve(server, port=0) as url:
        wire = Wire(url)
        session = wire.initialize()
        started = wire.request("tools/call", {"name": "wait_here", "arguments": {"path": str(tmp_path / "never")}},
                               session)
        job_id = json.loads(started["result"]["content"][0]["text"])["job_id"]
        deadline = time.monotonic() + 30
        while poll(wire, session, job_id)["status"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    with serve(server, port=0) as url:
        wire = Wire(url)
        polled = poll(wire, wire.initialize(), job_id)
        assert polled == {"status": "error", "job_id": job_id, "error": STOPPED}, polled
