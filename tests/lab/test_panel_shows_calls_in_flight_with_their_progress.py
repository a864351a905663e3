"""The panel's "In flight" section, in a real JupyterLab driven by headless Chromium.

A notebook tool runs a 30-step ``tqdm`` loop; while the official client's call runs, the
panel lists it under "In flight" with a progress bar that advances (its ``value`` grows) and
the bar's ``n/30`` text; once the call answers, the section goes away and the call sits in
the log as finished. Screenshots go to ``test-artifacts/`` (their paths are printed).

The loop's steps are short (0.05 s, every one drawn: ``mininterval=0``), and it holds at steps
5 and 10 until the test has seen the bar there (a file per hold, bounded): the bar is seen at
one value and then further on whatever the machine's speed, without 30 steps of 0.25 s (7.5 s).

Issue 17, "Done when": a Chromium test of the panel showing a call in flight with its progress.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lab_setup import LabServer, lab_serving
from support import mcp_client
from test_panel_follows_the_notebook_in_a_browser import PANEL, open_panel, page, run_all_cells, shot

pytestmark = pytest.mark.slow
__all__ = ["page"]  # the Chromium page fixture, shared with the panel's other browser test

HOLDS = (5, 10)
"""The steps at which the tool waits for the test's ``go-<step>`` file (in the notebooks' folder)."""
CELLS = [
    "%load_ext nanohubmcp\n%config NanohubMCP.port = 0\nimport time\nfrom pathlib import Path\nfrom tqdm import tqdm",
    '%%mcp_tool\ndef simulate(steps: int = 30) -> str:\n    """Simulate, step by step."""\n'
    '    for step in tqdm(range(steps), desc="simulate", mininterval=0):\n'
    '        deadline = time.monotonic() + 60\n'
    f'        while step in {HOLDS} and not Path(f"go-{{step}}").exists() and time.monotonic() < deadline:\n'
    '            time.sleep(0.05)\n'
    '        time.sleep(0.05)\n    return "done"',
]


@pytest.fixture
def lab(wheel_jupyter_path: Path, tmp_path: Path) -> Iterator[LabServer]:
    with lab_serving(CELLS, wheel_jupyter_path, tmp_path) as server:
        yield server


def let_on(lab: LabServer, step: int) -> None:
    """Let the tool past its hold at ``step`` (the kernel runs in the notebook's folder)."""
    (lab.root / f"go-{step}").write_text("go")


def start_call(url: str, name: str, args: dict[str, Any]) -> concurrent.futures.Future[Any]:
    """Call a tool with the official client on a thread of its own; returns at once."""

    async def go() -> Any:
        async with mcp_client(url) as client:
            return await client.call_tool(name, args)

    pool = concurrent.futures.ThreadPoolExecutor(1)
    future = pool.submit(asyncio.run, asyncio.wait_for(go(), 60))
    pool.shutdown(wait=False)
    return future


def bar_value(panel: Any) -> float:
    return float(panel.locator(".jp-nanohub-mcp-running progress").evaluate("bar => bar.value"))


def test_a_running_call_shows_in_flight_with_a_bar_that_advances(lab: LabServer, page: Any) -> None:
    page.goto(lab.page_url("panel.ipynb"))
    panel = open_panel(page)
    page.wait_for_selector(f'{PANEL}[data-state="not-loaded"]')  # the kernel is up
    run_all_cells(page)
    page.wait_for_selector(f'{PANEL} .jp-nanohub-mcp-tool[data-name="simulate"]')
    assert not panel.locator(".jp-nanohub-mcp-inflight").is_visible()
    url = panel.locator(".jp-nanohub-mcp-public a").get_attribute("href")
    assert url is not None

    call = start_call(url, "simulate", {"steps": 30})
    running = panel.locator('.jp-nanohub-mcp-running[data-name="simulate"]')
    running.wait_for(state="visible")
    page.wait_for_function(
        f"() => document.querySelector('{PANEL} .jp-nanohub-mcp-running progress')?.value >= 3")
    first = bar_value(panel)
    assert panel.locator(".jp-nanohub-mcp-running progress").evaluate("bar => bar.max") == 30
    assert "/30" in running.inner_text()
    assert "simulate" in running.inner_text()
    shot(page, "lab-panel-in-flight-page.png")
    shot(page, "lab-panel-in-flight.png", panel)
    let_on(lab, HOLDS[0])
    page.wait_for_function(
        f"() => document.querySelector('{PANEL} .jp-nanohub-mcp-running progress')?.value >= {first + 3}")
    assert bar_value(panel) > first
    let_on(lab, HOLDS[1])

    assert call.result(60).content[0].text == "done"
    panel.locator(".jp-nanohub-mcp-inflight").wait_for(state="hidden")
    page.wait_for_selector(f"{PANEL} .jp-nanohub-mcp-call.jp-mod-ok")
