"""An ``async def`` tool that awaits ``asyncio.gather`` of helpers, one blocking with ``time.sleep`` past
``tool_timeout``, is answered as having held the event loop in that helper, not merely "cancelled" (trial65 F1).

The helper's blocking step keeps the limit's timer from running; when the loop is free again the timer fires
before the tool's own coroutine resumes, so the call is cancelled then. Before, its answer was
``tool 'gather_block' did not finish within 1 s (tool_timeout); it was cancelled``: only the server log said the
helper held the loop, and the client (a desktop app shows nothing else) never learned why."""

from __future__ import annotations

import asyncio
import re
import time

from support import mcp_client, serve

from nanohubmcp import MCPServer

BLOCK = 2.0  # well past the limit (1 s) and loop_hold.HOLD_SECONDS


async def blocker() -> int:
    """A helper coroutine that blocks (time.sleep: the mistake)."""
    time.sleep(BLOCK)
    return 1


def test_a_gathered_helper_that_blocks_is_named_in_the_timeout_answer() -> None:
    server = MCPServer("gathers", tool_timeout=1)

    @server.tool()
    async def gather_block(x: float) -> list[float]:
        """gather with a blocking helper (trial65's tool)."""
        return list(await asyncio.gather(asyncio.sleep(0.1), blocker()))

    async def scenario(url: str) -> tuple[bool, str]:
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("gather_block", {"x": 1.0})
            return bool(result.is_error), result.content[0].text

    with serve(server) as url:
        is_error, text = asyncio.run(scenario(url))
    assert is_error, text
    assert re.fullmatch(r"tool 'gather_block' did not finish within 1 s \(tool_timeout\); it held the event loop "
                        r"for 2\.\d s \(a blocking call in an async def function\) in blocker\(\), a task it "
                        r"started, which no timeout can interrupt: the limit could act only once that step ended, "
                        r"and the call was then cancelled", text), text
