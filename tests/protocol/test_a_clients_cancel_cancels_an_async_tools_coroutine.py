"""A client's cancel of a running ``async def`` tool's call cancels its coroutine: its ``await`` raises
``CancelledError``, as at ``tool_timeout`` and a stop, and its provenance record says ``cancelled``. The official
``mcp`` client sends ``notifications/cancelled`` when its request times out (``read_timeout_seconds``), over
Streamable HTTP and over stdio, and closes the request's POST in the 2026-07-28 era; the session serves on. A sync
tool still reads the cancel as ``ctx.is_cancelled()``, and its call is recorded ``cancelled`` too, whether it then
returns or raises (trial74 F5: one that returned was recorded ``completed``, with the value nobody received).

Found by a fresh-user trial (trial73 F7): the coroutine was never cancelled, ran to its end and was recorded
``completed`` (MCP 2025-11-25, Basic § Utilities § Cancellation: the receiver SHOULD stop processing the request).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, official_client, run_command, serve, wait_until

from nanohubmcp import Context, MCPServer, ToolError

pytestmark = pytest.mark.timeout(120)

LONG = 600.0  # seconds a tool would run uncancelled: far past every wait below


class App:
    def __init__(self, state_dir: Path) -> None:
        self.cancelled = threading.Event()
        self.sync_saw_cancel = threading.Semaphore(0)
        self.server = server = MCPServer("cancels", state_dir=str(state_dir))

        @server.tool()
        async def aspin(seconds: float) -> str:
            """Waits, unless cancelled."""
            try:
                await asyncio.sleep(seconds)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            return "done"

        @server.tool()
        def spin(seconds: float, ctx: Context) -> str:
            """Waits on a thread, unless cancelled."""
            if ctx.cancel_event.wait(seconds):
                self.sync_saw_cancel.release()
                return "stopped"
            return "done"

        @server.tool()
        def grumble(seconds: float, ctx: Context) -> str:
            """Waits on a thread, and raises once cancelled."""
            if ctx.cancel_event.wait(seconds):
                self.sync_saw_cancel.release()
                raise ToolError("told to stop")
            return "done"

    def statuses(self, tool: str) -> list[str]:
        return [record["status"] for record in self.server.core.provenance.recent(50) if record["tool"] == tool]

    def errors(self, tool: str) -> list[str]:
        return [str(record.get("error")) for record in self.server.core.provenance.recent(50) if record["tool"] == tool]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    app = App(tmp_path)
    with serve(app.server):
        yield app


def test_over_streamable_http_the_coroutine_is_cancelled_and_recorded_so(app: App) -> None:
    url = app.server.url
    assert url is not None

    async def calls() -> str:
        async with mcp_client(url + "mcp") as client:
            for tool in ("aspin", "spin", "grumble"):
                with pytest.raises(MCPError):
                    await client.call_tool(tool, {"seconds": LONG}, read_timeout_seconds=0.5)
            return (await client.call_tool("aspin", {"seconds": 0})).content[0].text

    assert asyncio.run(calls()) == "done"  # the session serves on
    assert app.cancelled.wait(30), "the coroutine was not cancelled"
    for _ in range(2):
        assert app.sync_saw_cancel.acquire(timeout=30), "a sync tool did not see its cancel"
    assert wait_until(lambda: sorted(app.statuses("aspin")) == ["cancelled", "completed"] or None,
                      f"the records of aspin: {app.statuses('aspin')}", timeout=30)
    # Before: spin's call was recorded "completed" (the "stopped" nobody received), grumble's "failed".
    for tool in ("spin", "grumble"):
        assert wait_until(lambda tool=tool: app.statuses(tool) == ["cancelled"] or None,
                          f"the records of {tool}: {app.statuses(tool)}", timeout=30)
        assert app.errors(tool)[0].startswith("Request cancelled"), app.errors(tool)


def test_in_the_2026_era_the_closed_post_cancels_the_coroutine(app: App) -> None:
    url = app.server.url
    assert url is not None
    from mcp import Client

    async def calls() -> str:
        async with Client(url + "mcp", mode="2026-07-28") as client:
            for tool in ("aspin", "spin"):
                with pytest.raises(MCPError):
                    await client.call_tool(tool, {"seconds": LONG}, read_timeout_seconds=0.5)
            return (await client.call_tool("aspin", {"seconds": 0})).content[0].text

    assert asyncio.run(calls()) == "done"
    assert app.cancelled.wait(30), "the coroutine was not cancelled"
    assert wait_until(lambda: sorted(app.statuses("aspin")) == ["cancelled", "completed"] or None,
                      f"the records of aspin: {app.statuses('aspin')}", timeout=30)
    assert wait_until(lambda: app.statuses("spin") == ["cancelled"] or None,  # before: "completed"
                      f"the records of spin: {app.statuses('spin')}", timeout=30)


APP = '''
import asyncio
import os

from nanohubmcp import MCPServer

server = MCPServer("cancels-stdio")


@server.tool()
async def aspin(seconds: float) -> str:
    """Waits, unless cancelled."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        with open(os.environ["CANCEL_MARK"], "w") as mark:
            mark.write("cancelled")
        raise
    return "done"
'''


def test_over_stdio_the_coroutine_is_cancelled(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    mark = tmp_path / "mark"
    env = dict(os.environ, CANCEL_MARK=str(mark), NANOHUBMCP_STATE_DIR=str(tmp_path / "state"))

    async def calls() -> str:
        async with official_client(run_command(app), env=env) as client:
            with pytest.raises(MCPError):
                await client.call_tool("aspin", {"seconds": LONG}, read_timeout_seconds=0.5)
            await asyncio.to_thread(wait_until, mark.exists, "the coroutine's CancelledError", 30)
            return (await client.call_tool("aspin", {"seconds": 0})).content[0].text

    assert asyncio.run(calls()) == "done"
    assert mark.read_text() == "cancelled"
