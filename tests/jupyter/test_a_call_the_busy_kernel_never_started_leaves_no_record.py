"""A ``--main`` notebook tool called while a cell runs is refused "kernel busy" (its function never
ran) and leaves no provenance record: no ``_meta`` URI, nothing in ``%mcp history``. The same call
once the cell has finished runs and has its record.

Found by a fresh-scientist trial (trial 15, F13): the refused call got a record whose RO-Crate said
it "Ran on executor event-loop ... thread nanohubmcp-0", with ``error`` null.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from kernels import Cell, LiveKernel, held_cell, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

PROVENANCE = "io.nanohub/provenance"
MAIN_TOOL = '''%%mcp_tool --main
def on_main(x: int) -> int:
    """Runs on the kernel's main thread."""
    return x
'''


def test_a_kernel_busy_refusal_leaves_no_record(kernel: LiveKernel, tmp_path: Path) -> None:
    kernel.run_ok(f"import time\n%config NanohubMCP.state_dir = {str(tmp_path)!r}\n"
                  "%config NanohubMCP.tool_timeout = 1.0")
    kernel.run_ok(MAIN_TOOL)
    url = server_url(kernel)

    async def scenario() -> tuple[Any, Any]:
        async with mcp_client(url) as client:
            busy = kernel.submit(held_cell(tmp_path / "release"))
            await asyncio.to_thread(kernel.wait_for_text, Cell(busy, "running"), "cell running")
            refused = await client.call_tool("on_main", {"x": 1})
            (tmp_path / "release").touch()
            await asyncio.to_thread(kernel.wait, busy)
            ran = await client.call_tool("on_main", {"x": 2})
            return refused, ran

    refused, ran = run_async(scenario())
    assert refused.is_error
    assert refused.content[0].text.startswith("kernel busy: tool 'on_main' could not start within 1 s")
    assert PROVENANCE not in (refused.meta or {})
    assert not ran.is_error
    record_id = ran.meta[PROVENANCE].rsplit("/", 1)[-1]
    history = kernel.run_ok("%mcp history").text
    rows = [line for line in history.splitlines()[1:] if line.strip()]
    assert len(rows) == 1, history
    assert rows[0].startswith(record_id)
    assert "completed" in rows[0]


POOL_TOOL = '''%%mcp_tool
def on_pool(x: int) -> str:
    """Runs on the server's worker pool."""
    import threading
    return threading.current_thread().name
'''


def test_a_record_names_the_kernel_thread_or_the_worker_that_ran_the_function(kernel: LiveKernel,
                                                                                tmp_path: Path) -> None:
    """A ``--main`` tool's record names the kernel (its main thread), a pool tool's the worker thread
    that ran it: both named the server's event-loop thread, which ran neither."""
    import json

    kernel.run_ok(f"%config NanohubMCP.state_dir = {str(tmp_path)!r}")
    kernel.run_ok(MAIN_TOOL)
    kernel.run_ok(POOL_TOOL)
    url = server_url(kernel)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], str]:
        async with mcp_client(url) as client:
            main = await client.call_tool("on_main", {"x": 1})
            pool = await client.call_tool("on_pool", {"x": 1})
            records = []
            for result in (main, pool):
                read = await client.read_resource(result.meta[PROVENANCE])
                records.append(json.loads(read.contents[0].text))
            return records[0], records[1], pool.content[0].text

    main, pool, worker = run_async(scenario())
    assert (main["executor"], main["where"]["thread"]) == ("kernel", "MainThread"), main["where"]
    assert (pool["executor"], pool["where"]["thread"]) == ("worker-pool", worker), pool["where"]
