"""What the Context docs promise of a question the user leaves unanswered (trial22 F11): a sync tool keeps
its worker thread while it waits for the client's answer; an ``async def`` tool waits on the event loop and
keeps none. Both get the answer when it comes.

Source: docs/api/summary.md § Context ("A question holds a sync tool's worker").
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from support import wait_until

from nanohubmcp import Context, MCPServer
from nanohubmcp.testing import in_memory

pytestmark = pytest.mark.timeout(60)


def build() -> MCPServer:
    server = MCPServer("questions", workers=1)

    @server.tool()
    def ask_sync(ctx: Context) -> str:
        """Ask, blocking."""
        return str(ctx.elicit("Go on?", timeout=30)["action"])

    @server.tool()
    async def ask_async(ctx: Context) -> str:
        """Ask, awaiting."""
        return str((await ctx.elicit("Go on?", timeout=30))["action"])

    return server


@pytest.mark.parametrize(("tool", "workers_held"), [("ask_sync", 1), ("ask_async", 0)])
def test_a_waiting_question_holds_a_worker_only_in_a_sync_tool(tool: str, workers_held: int) -> None:
    server = build()
    asked, release = threading.Event(), threading.Event()

    async def user(params: dict[str, Any]) -> dict[str, Any]:
        asked.set()
        await asyncio.to_thread(release.wait, 30)  # the user takes their time
        return {"action": "accept", "content": {"value": "yes"}}

    with in_memory(server, elicitation=user) as client:
        result: list[dict[str, Any]] = []
        caller = threading.Thread(target=lambda: result.append(client.call_tool(tool)))
        caller.start()
        try:
            assert asked.wait(20), "the tool never asked"
            wait_until(lambda: server.core.executor.busy == workers_held, f"{workers_held} worker(s) busy", 10)
            assert server.core.executor.busy == workers_held
        finally:
            release.set()
            caller.join(20)
    assert result[0]["content"][0]["text"] == "accept"
