"""A fault of the server's own job tools (``get_job_result``, ``cancel_job``) answers REST 500
``{"error": "Internal error; see the server log"}`` and the traceback goes to the log: the exception's
message named the server's internals (on main: a codec's message, trial31 S1; here SQLite's "no
such table: jobs", the job store's table dropped under a running server)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer


def test_rest_job_tools_answer_the_generic_text(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("faulty", state_dir=tmp_path)

    @server.async_tool()
    def work(n: int) -> int:
        """Double ``n`` in the background."""
        return 2 * n

    with serve(server) as url:
        job_id = httpx.post(url + "tools/work", json={"n": 1}, timeout=10).json()["job_id"]
        with sqlite3.connect(tmp_path / "jobs.sqlite3") as db:
            db.execute("DROP TABLE jobs")
        for tool in ("get_job_result", "cancel_job"):
            reply = httpx.post(f"{url}tools/{tool}", json={"job_id": job_id[::-1]}, timeout=10)
            assert (reply.status_code, reply.json()) == (500, {"error": "Internal error; see the server log"})
    faults = [r for r in caplog.records if r.levelname == "ERROR" and r.name == "nanohubmcp.tool"]
    assert len(faults) == 2
    assert all(r.exc_info and "no such table: jobs" in str(r.exc_info[1].__cause__) for r in faults)
