"""trial30 T3: in ``mode = "kernel"`` the server's loop is the kernel's, so while a cell runs nothing answers:
a call waits for the cell to end, past ``tool_timeout``, with no "kernel busy" error (that error is thread
mode's, for ``--main`` and ``async def`` tools). The notebook page and the settings' help (the API
reference) said the "kernel busy" error applied in every mode; they now say what kernel mode does, and this
test holds the behaviour they describe."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.request
from pathlib import Path

import pytest
from kernels import Cell, LiveKernel, run_async, server_url

from nanohubmcp.jupyter.config import NanohubMCP

ROOT = Path(__file__).resolve().parents[2]
TOOL = '%%mcp_tool\ndef add(a: float, b: float) -> float:\n    """Add."""\n    return a + b'


def post(url: str) -> tuple[int, object, float]:
    started = time.perf_counter()
    request = urllib.request.Request(url, data=json.dumps({"a": 1, "b": 2}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read()), time.perf_counter() - started


@pytest.mark.slow
def test_in_kernel_mode_a_call_waits_for_the_running_cell_past_tool_timeout(kernel: LiveKernel) -> None:
    kernel.run_ok("import time\n%config NanohubMCP.mode = 'kernel'\n%config NanohubMCP.tool_timeout = 1")
    kernel.run_ok(TOOL)
    base = server_url(kernel).rsplit("/mcp", 1)[0]

    async def scenario() -> tuple[int, object, float]:
        busy = kernel.submit("print('cell running', flush=True)\ntime.sleep(3)")
        await asyncio.to_thread(kernel.wait_for_text, Cell(busy, "running"), "cell running")
        answer = asyncio.create_task(asyncio.to_thread(post, base + "/tools/add"))
        await asyncio.to_thread(kernel.wait, busy)
        return await answer

    status, body, elapsed = run_async(scenario())
    assert status == 200
    assert body == {"result": "3.0"}  # answered once the cell ended: no "kernel busy" at tool_timeout (1 s)
    assert elapsed > 1.5


def test_the_docs_say_kernel_mode_answers_nothing_while_a_cell_runs() -> None:
    traits = NanohubMCP.class_traits()
    assert "tool_timeout's 'kernel busy' does not apply" in traits["mode"].help
    assert "in kernel mode a request waits for the cell to end" in traits["tool_timeout"].help
    page = " ".join((ROOT / "docs/getting-started/notebook.md").read_text().split())
    assert re.search(r"own event loop; then nothing answers while a cell runs.*`tool_timeout`'s \"kernel busy\" does "
                     r"not apply", page)
