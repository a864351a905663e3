"""A call its client cancelled is ``cancelled``, whatever its function does next: a sync tool that reads
``ctx.is_cancelled()`` and returns (or raises) is recorded ``cancelled``, as an ``async def`` tool's cancelled
coroutine is, and no answer is sent for it. The official ``mcp`` client cancels at its read timeout (over
Streamable HTTP a ``notifications/cancelled``; in the 2026-07-28 era it closes the POST). Over stdio, where a client
closing its input may still read the output, a coroutine the end of input cancelled gets no answer.

Found by a fresh-user trial (trial74 F5: the sync tool's call was recorded ``completed`` with a result nobody
received; F4: over stdio, after the input closed, the server still wrote an answer, carrying an
``io.nanohub/provenance`` key, for the cancelled coroutine).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from provenance_rows import provenance_rows
from support import mcp_client, serve, wait_until

from nanohubmcp import Context, MCPServer, ToolError

pytestmark = pytest.mark.timeout(120)

LONG = 600.0  # seconds a tool would run uncancelled: far past every wait below


class App:
    def __init__(self, state_dir: Path) -> None:
        self.saw_cancel = threading.Semaphore(0)
        self.server = server = MCPServer("cancels-sync", state_dir=str(state_dir))

        @server.tool()
        def spin(seconds: float, ctx: Context) -> str:
            """Waits on a thread, and returns early once cancelled."""
            if ctx.cancel_event.wait(seconds):
                self.saw_cancel.release()
                return "stopped early"
            return "done"

        @server.tool()
        def grumble(seconds: float, ctx: Context) -> str:
            """Waits on a thread, and raises once cancelled."""
            if ctx.cancel_event.wait(seconds):
                self.saw_cancel.release()
                raise ToolError("told to stop")
            return "done"

    def records(self, tool: str) -> list[tuple[str, str | None]]:
        return [(record["status"], record.get("error")) for record in self.server.runtime.provenance.recent(50)
                if record["tool"] == tool]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    app = App(tmp_path)
    with serve(app.server):
        yield app


def test_over_streamable_http_a_sync_tools_call_is_recorded_cancelled(app: App) -> None:
    url = app.server.url
    assert url is not None

    async def calls() -> str:
        async with mcp_client(url + "mcp") as client:
            for tool in ("spin", "grumble"):
                with pytest.raises(MCPError):
                    await client.call_tool(tool, {"seconds": LONG}, read_timeout_seconds=0.5)
            return (await client.call_tool("spin", {"seconds": 0})).content[0].text

    assert asyncio.run(calls()) == "done"  # the session serves on
    for _ in range(2):
        assert app.saw_cancel.acquire(timeout=30), "a sync tool did not see its cancel"
    # Before: spin's call was recorded "completed" (the "stopped early" nobody received), grumble's "failed".
    for tool, calls_made in (("spin", 2), ("grumble", 1)):
        wait_until(lambda tool=tool, calls_made=calls_made: len(app.records(tool)) == calls_made or None,
                   f"the records of {tool}", timeout=30)
    assert sorted(status for status, _ in app.records("spin")) == ["cancelled", "completed"]
    [(status, error)] = app.records("grumble")
    assert status == "cancelled"
    assert error is not None
    assert error.startswith("Request cancelled"), error


def test_in_the_2026_era_the_closed_post_cancels_a_sync_tools_call(app: App) -> None:
    url = app.server.url
    assert url is not None
    from mcp import Client

    async def calls() -> str:
        async with Client(url + "mcp", mode="2026-07-28") as client:
            with pytest.raises(MCPError):
                await client.call_tool("spin", {"seconds": LONG}, read_timeout_seconds=0.5)
            return (await client.call_tool("spin", {"seconds": 0})).content[0].text

    assert asyncio.run(calls()) == "done"
    assert app.saw_cancel.acquire(timeout=30), "the sync tool did not see its cancel"
    wait_until(lambda: len(app.records("spin")) == 2 or None, "the records of spin", timeout=30)
    assert sorted(status for status, _ in app.records("spin")) == ["cancelled", "completed"]


APP = '''
import asyncio
from nanohubmcp import Context, MCPServer

server = MCPServer("quits-sync")


@server.tool()
def spin(ctx: Context) -> str:
    """Waits on a thread, and returns early once cancelled."""
    return "stopped early" if ctx.cancel_event.wait(45) else "done"


@server.tool()
async def aspin() -> str:
    """Waits 45 s, unless cancelled."""
    await asyncio.sleep(45)
    return "done"


server.run(transport="stdio", exit_grace=120)
'''
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "quits", "version": "1"}}


def test_over_stdio_a_coroutine_the_closed_input_cancelled_gets_no_answer_and_a_returning_call_its_own(
        tmp_path: Path) -> None:
    """Over stdio the client's output may outlive its input (``printf ... | nanohubmcp run app.py``): the end of
    input cancels what runs, an ``async def`` tool's coroutine at once (no answer, recorded ``cancelled``), while a
    sync function that returns is answered with its value (tests/transports/test_stdio_closed_right_after_a_quick_
    call_says_no_wait.py holds a quick call's answer)."""
    app, state = tmp_path / "app.py", tmp_path / "state"
    app.write_text(APP)
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(state)}
    proc = subprocess.Popen([sys.executable, str(app)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    try:
        assert proc.stdin is not None
        assert proc.stdout is not None

        def send(message: dict[str, object]) -> None:
            proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        assert b'"id":1' in proc.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "spin", "arguments": {}}})
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "aspin", "arguments": {}}})
        send({"jsonrpc": "2.0", "id": 4, "method": "ping"})  # answered once both calls run (tasks of their own)
        assert b'"id":4' in proc.stdout.readline()
        proc.stdin.close()
        after = [json.loads(line) for line in proc.stdout.read().splitlines()]  # up to the process's exit
        assert proc.wait(60) == 0, proc.stderr.read().decode() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    # Before: aspin's answer too, "Request cancelled: the client closed its input" with a provenance key.
    assert [answer["id"] for answer in after] == [2], after
    assert after[0]["result"]["content"][0]["text"] == "stopped early"
    rows = provenance_rows(state)
    by_tool = {line.split()[1]: line for line in rows}
    assert set(by_tool) == {"spin", "aspin"}, rows
    assert " completed " in by_tool["spin"], rows
    assert " cancelled " in by_tool["aspin"], rows
    assert "the client closed its input" in by_tool["aspin"], rows
