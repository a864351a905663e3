"""A ``tools/call`` whose function never started leaves no provenance record, as provenance.md says
of every call nothing ran: one that could not start within ``tool_timeout`` because every worker
was busy (an ``isError`` result saying so, ``Retry-After`` on REST), and an ``@async_tool`` call
refused because the job store is full. The calls that did run have their records.

Found by a fresh-scientist trial (trial 15, F13): such a call got a record — its RO-Crate said the
tool "Ran on executor ..." with ``error`` null.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

PROVENANCE = "io.nanohub/provenance"


@pytest.mark.anyio
@pytest.mark.timeout(60)
async def test_a_call_no_worker_could_start_leaves_no_record(tmp_path: Path) -> None:
    # max_stuck_calls=0: a timed-out call keeps its worker, so the pool stays full.
    server = MCPServer("busy", state_dir=str(tmp_path), workers=1, tool_timeout=1.0, max_stuck_calls=0)
    holding, release = threading.Event(), threading.Event()

    @server.tool()
    def hold() -> str:
        """Hold the only worker until released."""
        holding.set()
        release.wait(20)
        return "released"

    with serve(server) as url:
        async with mcp_client(url + "mcp") as first, mcp_client(url + "mcp") as second:
            held = asyncio.ensure_future(first.call_tool("hold", {}))
            assert await asyncio.to_thread(holding.wait, 10)
            queued = await second.call_tool("hold", {})
            done = await held  # over its time limit: it ran (and runs on)
            release.set()
        records = server.core.provenance.recent()
    assert queued.is_error
    assert "'hold' could not start within 1 s: every worker was busy" in queued.content[0].text
    assert PROVENANCE not in (queued.meta or {})
    assert done.is_error
    assert "did not finish within 1 s" in done.content[0].text
    assert [(r["tool"], r["status"]) for r in records] == [("hold", "failed")]
    assert done.meta[PROVENANCE].endswith(records[0]["id"])


@pytest.mark.anyio
@pytest.mark.timeout(60)
async def test_a_job_the_full_store_refused_leaves_no_record(tmp_path: Path) -> None:
    server = MCPServer("capped", state_dir=str(tmp_path), max_jobs=1)
    release = threading.Event()

    @server.async_tool()
    def wait_a_while() -> str:
        """A job that waits until released."""
        release.wait(20)
        return "done"

    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            started = await client.call_tool("wait_a_while", {})
            refused = await client.call_tool("wait_a_while", {})
            release.set()
        records = server.core.provenance.recent()
    assert not started.is_error
    assert refused.is_error
    assert "max_jobs" in refused.content[0].text
    assert PROVENANCE not in (refused.meta or {})
    assert [r["tool"] for r in records] == ["wait_a_while"]
    assert started.meta[PROVENANCE].endswith(records[0]["id"])
