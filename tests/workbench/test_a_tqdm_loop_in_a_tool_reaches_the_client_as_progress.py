"""A tool's tqdm loop becomes ``notifications/progress`` for a client that sent a progress token.

- A sync tool (worker thread) and an ``async def`` tool (event loop) each run a 20-step
  ``tqdm`` loop; the official client, calling with a progress callback, gets at least 20
  progress notifications, increasing, the last at 20/20, all before the result.
- ``tqdm.auto`` bars count the same; bars nested in the leading one are not reported, and a
  second loop after the first keeps the values increasing.
- A tqdm bar made outside any call (at module level, say) sends nothing anywhere.
- A client without a progress token gets the result and no notifications.

Source: MCP 2025-11-25, Basic § Utilities § Progress. Issue 17, "Done when".
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

tqdm = pytest.importorskip("tqdm")
from tqdm import tqdm as bar  # noqa: E402
from tqdm.auto import tqdm as auto_bar  # noqa: E402

STEP = 0.12  # a step of "work" longer than tqdm's default mininterval (0.1 s): each one redraws


def build() -> MCPServer:
    server = MCPServer("tqdm-progress")

    @server.tool()
    def simulate(steps: int = 20) -> str:
        """A plain loop with a tqdm bar, on a worker thread."""
        for _ in bar(range(steps), desc="simulate"):
            time.sleep(STEP)
        return "simulated"

    @server.tool()
    async def simulate_async(steps: int = 20) -> str:
        """The same loop in an async tool, with tqdm.auto."""
        for _ in auto_bar(range(steps)):
            await asyncio.sleep(STEP)
        return "simulated async"

    @server.tool()
    def nested_then_second() -> str:
        """An outer loop with inner bars, then a second loop."""
        for _ in bar(range(3)):
            for _ in bar(range(4), leave=False):
                time.sleep(0.03)
            time.sleep(STEP)
        for _ in bar(range(2)):
            time.sleep(STEP)
        return "two loops"

    return server


async def call(client: Any, name: str, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    timeline: list[tuple[Any, ...]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        timeline.append(("progress", progress, total, message))

    result = await client.call_tool(name, args, progress_callback=on_progress)
    timeline.append(("result", result.content[0].text))
    return timeline


def progress_of(timeline: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    assert timeline[-1][0] == "result", timeline
    assert all(kind == "progress" for kind, *_ in timeline[:-1]), timeline
    return [entry[1:] for entry in timeline[:-1]]


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["simulate", "simulate_async"])
async def test_a_20_step_tqdm_loop_sends_20_increasing_notifications_before_the_result(name: str) -> None:
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            timeline = await call(client, name, {"steps": 20})
            await anyio.sleep(0.3)  # anything late would land in the timeline now
    steps = progress_of(timeline)
    values = [p for p, _, _ in steps]
    assert len(values) >= 20, steps
    assert values == sorted(set(values)), values  # strictly increasing
    assert steps[-1][:2] == (20, 20), steps
    assert all(total == 20 for _, total, _ in steps), steps
    if name == "simulate":
        assert steps[-1][2] == "simulate: 20/20", steps


@pytest.mark.anyio
async def test_nested_bars_do_not_report_and_a_second_loop_continues_upward() -> None:
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            timeline = await call(client, "nested_then_second", {})
    steps = progress_of(timeline)
    values = [p for p, _, _ in steps]
    assert values == sorted(set(values)), values
    assert 3 in values, steps  # the outer bar's 3 steps
    assert values[-1] == 5, steps  # then 2 more
    assert steps[-1][1] == 5, steps


@pytest.mark.anyio
async def test_no_token_no_notifications_and_bars_outside_calls_are_left_alone() -> None:
    outside = bar(total=5)  # made by the program, not by a call
    seen: list[Any] = []

    async def everything(message: Any) -> None:  # every request and notification from the server
        seen.append(message)

    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp", message_handler=everything) as client:
            result = await client.call_tool("simulate", {"steps": 3})  # no progress token
            outside.update(5)
            outside.close()
            assert result.content[0].text == "simulated"
            await client.send_ping()  # anything sent before this answer has arrived
    assert not [m for m in seen if "progress" in repr(m).lower()], seen
