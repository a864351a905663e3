"""A notebook tool's tqdm loop: progress for the client, the bar in the cell that defined it.

A real kernel defines a tool whose body is a 20-step ``tqdm`` loop; the official client calls
it with a progress token. The client gets at least 20 progress notifications, increasing, up
to 20/20, all before the result; the defining cell's iopub output (stderr stream messages,
addressed to that cell) shows the bar advancing to 20/20.

Source: MCP 2025-11-25, Basic § Utilities § Progress. Issue 17, "Done when".
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow
pytest.importorskip("tqdm")

TOOL = '''%%mcp_tool
def simulate(steps: int = 20) -> str:
    """Run a 20-step simulation with a tqdm bar."""
    for _ in tqdm(range(steps), desc="simulate"):
        time.sleep(0.12)
    return f"simulated {steps} steps"
'''


def test_twenty_tqdm_steps_reach_the_client_in_order_and_the_bar_advances_in_the_cell(kernel: LiveKernel) -> None:
    kernel.run_ok("import time\nfrom tqdm import tqdm")
    cell = kernel.run_ok(TOOL)
    url = server_url(kernel)

    async def call() -> list[tuple[Any, ...]]:
        timeline: list[tuple[Any, ...]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            timeline.append(("progress", progress, total, message))

        async with mcp_client(url) as client:
            result = await client.call_tool("simulate", {"steps": 20}, progress_callback=on_progress)
            timeline.append(("result", result.content[0].text))
        return timeline

    timeline = run_async(call())
    assert timeline[-1] == ("result", "simulated 20 steps"), timeline
    steps = timeline[:-1]
    assert all(kind == "progress" for kind, *_ in steps), timeline
    values = [progress for _, progress, _, _ in steps]
    assert len(values) >= 20, steps
    assert values == sorted(set(values)), values
    assert steps[-1][1:] == (20, 20, "simulate: 20/20"), steps

    text = kernel.wait_for_text(cell, "20/20")
    counts = [int(n) for n in re.findall(r"(\d+)/20 \[", text)]
    assert len(set(counts)) >= 10 and counts == sorted(counts) and counts[-1] == 20, text
