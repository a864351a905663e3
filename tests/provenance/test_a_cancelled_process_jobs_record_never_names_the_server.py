"""A ``processes`` job cancelled while its function runs leaves a record that names the job's own process
(its pid), never the server's process and the thread that served the call: the cancel ends the job (and
completes its record) before the executor has taken the process back. Real job process, a real cancel.

Found by a fresh-user trial (trial53 F7): the cancelled job's record said ``"where": {"pid": <the server's>,
"thread": "MainThread"}``, and its crate "Ran on executor processes at ... thread MainThread".
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import pytest
from support import PROVENANCE_META, serve, wait_until

from nanohubmcp import MCPServer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


def crunch(marker: str) -> str:
    """Says its pid in ``marker``, then runs a minute."""
    Path(marker).write_text(str(os.getpid()))
    time.sleep(60)
    return "late"


async def test_a_cancelled_process_jobs_record_names_its_process(tmp_path: Path) -> None:
    server = MCPServer("cancelwhere", state_dir=str(tmp_path / "state"), job_executor="processes")
    server.async_tool()(crunch)
    marker = tmp_path / "pid"
    with serve(server):
        started = await anyio.to_thread.run_sync(server.call, "crunch", {"marker": str(marker)})
        job_id = started["structuredContent"]["job_id"]
        record_id = started["_meta"][PROVENANCE_META].rsplit("/", 1)[1]
        await anyio.to_thread.run_sync(lambda: wait_until(lambda: marker.exists() and marker.read_text(),
                                                          "the job's process running", 60))
        child = int(marker.read_text())
        await anyio.to_thread.run_sync(server.call, "cancel_job", {"job_id": job_id})
        with anyio.fail_after(60):
            while (record := server.core.provenance.find(record_id)) is None or record["status"] == "working":
                await anyio.sleep(0.05)
    assert record["status"] == "cancelled", record
    assert record["executor"] == "processes", record
    where = record["where"]
    assert where["pid"] == child != os.getpid(), (where, child)
    assert where["thread"] != "MainThread", where
