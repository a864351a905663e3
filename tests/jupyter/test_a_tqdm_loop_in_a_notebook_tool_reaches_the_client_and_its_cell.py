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
    assert len(set(counts)) >= 10, text
    assert counts == sorted(counts), text
    assert counts[-1] == 20, text


CONTEXT_TOOL = '''%%mcp_tool
def fit(ctx: Context, steps: int = 5) -> str:
    """Fit in steps, reporting progress through the Context."""
    for i in range(1, steps + 1):
        time.sleep(0.05)
        ctx.report_progress(i, steps, f"epoch {i}")
    return "fitted"
'''


def test_without_ipywidgets_report_progress_draws_a_text_bar_in_the_defining_cell(start_kernel: Any) -> None:
    kernel = start_kernel()
    # A kernel that cannot import ipywidgets (blocked here; the test environment has it).
    kernel.run_ok('import sys\nsys.modules["ipywidgets"] = None\n%load_ext nanohubmcp\n%config NanohubMCP.port = 0')
    kernel.run_ok("import time\nfrom nanohubmcp import Context")
    cell = kernel.run_ok(CONTEXT_TOOL)
    url = server_url(kernel)

    async def call() -> str:
        async with mcp_client(url) as client:  # no progress token: the cell shows the bar anyway
            return str((await client.call_tool("fit", {"steps": 5})).content[0].text)

    assert run_async(call()) == "fitted"
    kernel.wait_for_text(cell, "5/5 epoch 5")
    displays = ("display_data", "update_display_data")
    drawn = [m for m in kernel.messages(cell.msg_id)
             if m["msg_type"] in displays and "epoch" in m["content"]["data"]["text/plain"]]
    shown = [(m["msg_type"], m["content"]["data"]["text/plain"]) for m in drawn]
    assert shown[0] == ("display_data", f"[{'#' * 6}{'.' * 24}] 1/5 epoch 1"), shown
    assert [kind for kind, _ in shown[1:]] == ["update_display_data"] * 4, shown
    assert shown[-1][1] == f"[{'#' * 30}] 5/5 epoch 5", shown
    assert len({m["content"]["transient"]["display_id"] for m in drawn}) == 1, drawn  # one bar, redrawn


def test_with_ipywidgets_report_progress_shows_a_widget_in_the_defining_cell(kernel: LiveKernel) -> None:
    pytest.importorskip("ipywidgets")
    kernel.run_ok("import time\nfrom nanohubmcp import Context")
    cell = kernel.run_ok(CONTEXT_TOOL)
    url = server_url(kernel)

    async def call() -> str:
        async with mcp_client(url) as client:
            return str((await client.call_tool("fit", {"steps": 5})).content[0].text)

    assert run_async(call()) == "fitted"
    kernel.wait_for_text(cell, "HBox")  # the widget's display, under the defining cell
    widget = [m for m in kernel.messages(cell.msg_id) if m["msg_type"] == "display_data"
              and "application/vnd.jupyter.widget-view+json" in m["content"]["data"]]
    assert len(widget) == 1, widget
    states = kernel.comm_states()
    assert {"value": 5.0} in states, states  # the bar's value reached 5 of 5
    assert {"value": f"[{'#' * 30}] 5/5 epoch 5"} in states, states
