"""``%mcp stop`` then ``%mcp start`` in a notebook ends every session; the jobs of the earlier start
(threads and processes) are then read by their ids from a new session, as after a restart of the
kernel's server process. (They answered "not found" to everyone while the kernel lived.)"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

CELLS = [
    '''%%mcp_tool --async
def square(x: int) -> int:
    """x squared, on a worker thread."""
    return x * x
''',
    '''%%mcp_tool --async --executor processes
def cube(x: int) -> int:
    """x cubed, in a process of its own."""
    return x ** 3
''',
]


async def wait_done(client: Any, job_id: str, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        polled = await client.call_tool("get_job_result", {"job_id": job_id})
        state = json.loads(polled.content[0].text)
        if state["status"] != "running":
            return state
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} still running after {timeout} s")


def test_jobs_of_the_run_before_mcp_stop_are_read_by_id_after_mcp_start(kernel: LiveKernel) -> None:
    for cell in CELLS:
        kernel.run_ok(cell)

    async def first_run() -> dict[str, str]:
        async with mcp_client(server_url(kernel)) as client:
            ids = {}
            for tool, x in (("square", 3), ("cube", 2)):
                started = await client.call_tool(tool, {"x": x})
                ids[tool] = json.loads(started.content[0].text)["job_id"]
                assert (await wait_done(client, ids[tool]))["status"] == "done"
            return ids

    ids = run_async(first_run(), timeout=150)
    kernel.run_ok("%mcp stop")
    kernel.run_ok("%mcp start")

    async def second_run() -> dict[str, Any]:
        async with mcp_client(server_url(kernel)) as client:
            return {tool: await wait_done(client, job_id) for tool, job_id in ids.items()}

    seen = run_async(second_run(), timeout=150)
    assert seen["square"] == {"status": "done", "job_id": ids["square"], "result": 9}, seen
    assert seen["cube"] == {"status": "done", "job_id": ids["cube"], "result": 8}, seen
