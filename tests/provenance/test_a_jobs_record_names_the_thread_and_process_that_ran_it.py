"""A job's provenance record names where its function really ran: a ``threads`` job the job
thread (``nanohubmcp-job-...``), not the thread that served the call; a ``processes`` job the
job's own process (its pid and thread), not the server's. Checked against what the function
itself saw, through the official client. Found by trial17 (F6): a threads job that ran on
``nanohubmcp-job-main-1`` was recorded as ``nanohubmcp-0``."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from support import PROVENANCE_META, ended_job, mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


def ran_where(n: int) -> dict[str, Any]:
    """n back, with the pid and thread that ran the function."""
    return {"n": n, "pid": os.getpid(), "thread": threading.current_thread().name}


async def finished_by_call(server: MCPServer, started: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same through ``server.call`` and ``server.core.provenance.find``."""
    job_id = started["structuredContent"]["job_id"]
    record_id = started["_meta"][PROVENANCE_META].rsplit("/", 1)[1]
    with anyio.fail_after(60):
        while (answer := await anyio.to_thread.run_sync(server.call, "get_job_result", {"job_id": job_id}))[
            "structuredContent"
        ].get("status") == "running":
            await anyio.sleep(0.05)
        while (record := server.core.provenance.find(record_id)) is None or record["status"] == "working":
            await anyio.sleep(0.05)
    return answer["structuredContent"].get("result") or answer["structuredContent"], record


@pytest.mark.parametrize("how", ["official client", "server.call"])
@pytest.mark.parametrize("executor", ["threads", "processes"])
async def test_a_jobs_record_names_where_its_function_ran(executor: str, how: str, tmp_path: Path) -> None:
    server = MCPServer(f"jobwhere-{executor}", state_dir=str(tmp_path), job_executor=executor)
    server.async_tool()(ran_where)
    with serve(server) as url:
        if how == "server.call":
            started = await anyio.to_thread.run_sync(server.call, "ran_where", {"n": 3})
            value, record = await finished_by_call(server, started)
        else:
            async with mcp_client(url + "mcp") as client:
                answer, record = await ended_job(client, await client.call_tool("ran_where", {"n": 3}), 60)
                value = answer.get("result") or answer
    assert record["status"] == "completed", record
    assert record["executor"] == executor
    where = record["where"]
    assert value["n"] == 3, value
    assert (where["pid"], where["thread"]) == (value["pid"], value["thread"]), (where, value)
    if executor == "threads":
        assert value["pid"] == os.getpid()
        assert value["thread"].startswith("nanohubmcp-job"), value
    else:
        assert value["pid"] != os.getpid()
    assert where["host"] == socket.gethostname()
