"""``await ctx.info(...)`` (and ``await ctx.report_progress(...)``) in an ``async def`` tool (the habit of FastMCP and
the official SDK, whose log and progress methods are coroutines) sends the message and goes on, as ``ctx.info(...)``
does (trial65 F6, trial75 F7). Before, these methods returned None and the call failed with ``object NoneType can't be
used in 'await' expression``."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

from support import mcp_client, serve

from nanohubmcp import Context, MCPServer


def test_awaited_log_methods_send_and_the_tool_goes_on() -> None:
    server = MCPServer("awaits")

    @server.tool()
    async def talk(ctx: Context) -> str:
        """Logs with await, as the official SDK's tools do."""
        await ctx.info("first")
        await ctx.warning("second")
        await ctx.log("error", "third")
        ctx.debug("fourth")  # a plain call: no "never awaited" warning either way
        return "done"

    got: list[tuple[str, Any]] = []

    async def on_log(params: Any) -> None:
        got.append((params.level, params.data))

    async def scenario(url: str) -> tuple[bool, str]:
        async with mcp_client(url + "mcp", logging_callback=on_log) as client:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the SDK deprecates logging/setLevel; servers still serve it)
                await client.set_logging_level("debug")
            result = await client.call_tool("talk", {})
            return bool(result.is_error), result.content[0].text

    with serve(server) as url:
        is_error, text = asyncio.run(scenario(url))
    assert (is_error, text) == (False, "done"), text
    assert [level for level, _ in got] == ["info", "warning", "error", "debug"], got
    assert [str(data) for _, data in got] == ["first", "second", "third", "fourth"], got


def test_an_awaited_report_progress_sends_and_the_tool_goes_on() -> None:
    """trial75 F7: ``await ctx.report_progress(i, total)`` (the official SDK's ``report_progress`` is a coroutine)
    failed the call with ``object NoneType can't be used in 'await' expression``."""
    server = MCPServer("awaited-progress")

    @server.tool()
    async def count(steps: int, ctx: Context) -> int:
        """Reports progress with await, as the official SDK's tools do."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return steps

    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async def scenario(url: str) -> tuple[bool, str]:
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("count", {"steps": 3}, progress_callback=on_progress)
            return bool(result.is_error), result.content[0].text

    with serve(server) as url:
        is_error, text = asyncio.run(scenario(url))
    assert (is_error, text) == (False, "3"), text
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")], seen
