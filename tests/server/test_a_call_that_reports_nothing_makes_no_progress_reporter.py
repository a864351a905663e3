"""A tool call's progress reporter is made by its first report (``ctx.report_progress``, a tqdm
bar); a call that reports nothing makes none, and once it is answered a late report (a worker
thread still running) sends nothing."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from nanohubmcp import Context, MCPServer
from nanohubmcp.server.calls import progress
from nanohubmcp.testing import MemoryClient

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


async def test_no_reporter_without_a_report_and_none_after_the_answer() -> None:
    server = MCPServer("progress", job_store="memory", provenance=False)
    requests: list[object] = []
    late = threading.Event()
    sent_late: list[bool] = []

    @server.tool()
    async def quiet(x: int) -> int:
        """Reports nothing."""
        return x

    @server.tool()
    async def steps(ctx: Context) -> str:
        """Reports once."""
        await ctx.report_progress(1, 2)
        return "done"

    @server.tool()
    def leaves_a_thread(ctx: Context) -> str:
        """Reports from a thread after its answer."""

        def later() -> None:
            late.wait(10)
            reporter = progress.current()  # the call's, through the copied context
            sent_late.append(reporter is not None and reporter.report(5, 10))

        call = contextvars.copy_context()
        threading.Thread(target=call.run, args=(later,), daemon=True).start()
        return "answered"

    @server.middleware
    async def keep(request, call_next):  # type: ignore[no-untyped-def]
        requests.append(request.context)
        return await call_next(request)

    async with MemoryClient(server) as client:
        await client.call_tool("quiet", {"x": 1})
        assert requests[-1].slots[progress.PROGRESS] is progress.ANSWERED
        await client.request("tools/call", {"name": "steps", "arguments": {}, "_meta": {"progressToken": "t"}})
        made = requests[-1].slots[progress.PROGRESS]
        assert isinstance(made, progress.CallProgress)
        assert made.finished
        assert [m["params"]["progress"] for m in client.messages if m.get("method") == "notifications/progress"] == [1]
        await client.request(
            "tools/call", {"name": "leaves_a_thread", "arguments": {}, "_meta": {"progressToken": "u"}}
        )
        late.set()
        for _ in range(200):
            if sent_late:
                break
            await asyncio.sleep(0.01)
    assert sent_late == [False]
    assert [m["params"]["progressToken"] for m in client.messages if m.get("method") == "notifications/progress"] == [
        "t"
    ]
