"""A job's progress report with a total beyond 64 bits (10**22 atoms) is stored and read back;
it no longer ends the job with SQLite's "Python int too large to convert to SQLite INTEGER".

Found by a new user: the same call of a plain tool worked, and a job returning that int worked.
"""

from __future__ import annotations

import contextlib
import json
import os
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
        assert polled["result"] == ATOMS


def beyond_floats(ctx: Context) -> str:
    """Report a progress no float can hold."""
    ctx.report_progress(10**400, 10**401, "far")
    return "ok"


def says_hi(x: int, ctx: Context) -> int:
    """A job that talks back through ctx."""
    ctx.info("hi")
    return x + 1


def finish(url: str, tool: str, arguments: dict) -> dict:
    started = json.loads(call_tool_http(url, tool, arguments)["content"][0]["text"])
    deadline = time.monotonic() + 30
    while True:
        answer = call_tool_http(url, "get_job_result", {"job_id": started["job_id"]})
        polled = json.loads(answer["content"][0]["text"])
        if polled["status"] != "running":
            return polled
        assert time.monotonic() < deadline, polled
        time.sleep(0.05)


def test_a_progress_beyond_any_float_ends_no_job_and_wedges_no_executor(tmp_path: Path) -> None:
    """Found by a second trial: 10**400 failed the threads job, and on the processes executor it
    stopped the channel every ctx job shares (later ctx jobs stayed 'working' for good)."""
    for executor in ("threads", "processes"):
        server = MCPServer("far", state_dir=str(tmp_path / executor), job_executor=executor)
        server.async_tool()(beyond_floats)
        server.async_tool()(says_hi)
        with serve(server) as url:
            far = finish(url, "beyond_floats", {})
            assert far["status"] == "done", (executor, far)
            after = finish(url, "says_hi", {"x": 1})
            assert after["status"] == "done", (executor, after)
            assert after["result"] == 2


def test_a_killed_manager_process_is_replaced_for_the_next_ctx_job(tmp_path: Path) -> None:
    """Found by a second trial: after the processes executor's manager process (the ctx channel)
    was killed, every later job with ctx failed with 'Connection refused' until a restart."""
    import multiprocessing
    import signal

    server = MCPServer("manager", state_dir=str(tmp_path / "state"), job_executor="processes")
    server.async_tool()(says_hi)
    with serve(server) as url:
        assert finish(url, "says_hi", {"x": 1})["status"] == "done"
        managers = multiprocessing.active_children()
        assert managers, "the ctx channel's manager process runs"
        for process in managers:
            with contextlib.suppress(ProcessLookupError):  # a child that had already exited (seen under load)
                os.kill(process.pid, signal.SIGKILL)
            process.join(10)
        again = finish(url, "says_hi", {"x": 2})
        assert again["status"] == "done", again
        assert again["result"] == 3
