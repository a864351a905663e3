"""A job's progress report with a total beyond 64 bits (10**22 atoms) is stored and read back;
it no longer ends the job with SQLite's "Python int too large to convert to SQLite INTEGER".

Found by a new user: the same call of a plain tool worked, and a job returning that int worked.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from support import call_tool_http, serve

from nanohubmcp import Context, MCPServer

ATOMS = 10**22


def test_a_huge_progress_total_is_kept(tmp_path: Path) -> None:
    server = MCPServer("atoms", state_dir=str(tmp_path / "state"))

    @server.async_tool()
    def count_atoms(n_atoms: int, ctx: Context) -> int:
        """Report one step of n_atoms."""
        ctx.report_progress(1, n_atoms, "counting")
        return n_atoms

    with serve(server) as url:
        started = json.loads(call_tool_http(url, "count_atoms", {"n_atoms": ATOMS})["content"][0]["text"])
        deadline = time.monotonic() + 30
        while True:
            answer = call_tool_http(url, "get_job_result", {"job_id": started["job_id"]})
            polled = json.loads(answer["content"][0]["text"])
            if polled["status"] != "running":
                break
            assert time.monotonic() < deadline, polled
            time.sleep(0.05)
        assert polled["status"] == "done", polled
        assert int(polled["result"]) == ATOMS
