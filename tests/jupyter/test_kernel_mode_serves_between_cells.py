"""Kernel mode: the server lives on the kernel's own event loop and answers between cells."""

from __future__ import annotations

import statistics
import time
from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

TOOL = '''%%mcp_tool
def shout(text: str) -> str:
    """Upper-case the text."""
    print("shouting", text)
    return text.upper()
'''


def test_kernel_mode_answers_between_cells(kernel: LiveKernel, record_property: Any) -> None:
    kernel.run_ok("%config NanohubMCP.mode = 'kernel'")
    defining = kernel.run_ok(TOOL)
    assert "(kernel mode)" in defining.text
    url = server_url(kernel)

    async def between_cells() -> tuple[list[float], str]:
        async with mcp_client(url) as client:
            latencies = []
            for _ in range(10):
                t0 = time.perf_counter()
                await client.send_ping()
                latencies.append((time.perf_counter() - t0) * 1000.0)
            return latencies, (await client.call_tool("shout", {"text": "hi"})).content[0].text

    latencies, shouted = run_async(between_cells())
    median = statistics.median(latencies)
    print(f"kernel-mode ping between cells: median {median:.1f} ms, max {max(latencies):.1f} ms")
    record_property("kernel_mode_ping_ms_median_idle", round(median, 2))
    assert shouted == "HI"
    assert "shouting hi" in kernel.wait_for_text(defining, "shouting hi")
    # Still the same server after more cells ran.
    kernel.run_ok("x = sum(range(1000))")

    async def again() -> str:
        async with mcp_client(url) as client:
            return str((await client.call_tool("shout", {"text": "again"})).content[0].text)

    assert run_async(again()) == "AGAIN"


def test_switching_mode_restarts_the_running_server(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    switched = kernel.run_ok("%config NanohubMCP.mode = 'kernel'")
    assert "MCP server restarted" in switched.text
    assert "(kernel mode)" in kernel.run_ok("%mcp status").text
    url = server_url(kernel)

    async def call() -> str:
        async with mcp_client(url) as client:
            return str((await client.call_tool("shout", {"text": "k"})).content[0].text)

    assert run_async(call()) == "K"
