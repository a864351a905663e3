"""A client's cancel of a running ``resources/read`` or ``prompts/get`` ends it as a ``tools/call``'s does: an
``async def`` resource or prompt function's coroutine is cancelled (its ``await`` raises ``CancelledError``), no
answer is sent, the call is logged ``cancelled`` (``call_finished`` with ``ok`` false), and the session serves on;
a sync function is left to finish on its worker, and what it returns is not answered (logged ``cancelled`` too).

Before, only a tool's coroutine was cancelled: an async resource or prompt ran to its end (MCP 2025-11-25, Basic §
Utilities § Cancellation: the receiver SHOULD stop processing a cancelled request and SHOULD NOT answer it).
The official ``mcp`` client sends ``notifications/cancelled`` for a request its caller abandons (over Streamable
HTTP and stdio; in the 2026-07-28 era it closes the request's POST instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support import era_client, official_client, run_command, serve, wait_until

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(120)

LONG = 600.0  # seconds a function would wait uncancelled: far past every wait below


class App:
    def __init__(self, state_dir: Path) -> None:
        self.started = {name: threading.Event() for name in ("aread", "aprompt", "sread")}
        self.cancelled = {name: threading.Event() for name in ("aread", "aprompt")}
        self.returned = threading.Event()
        self.finished: list[tuple[str, bool, str | None]] = []
        self.server = server = MCPServer("cancels", state_dir=str(state_dir))
        server.events.subscribe(
            lambda event, data: self.finished.append((data["name"], data["ok"], data.get("error"))), ["call_finished"])

        async def waits(name: str) -> str:
            self.started[name].set()
            try:
                await asyncio.sleep(LONG)
            except asyncio.CancelledError:
                self.cancelled[name].set()
                raise
            return "done"

        @server.resource("slow://async")
        async def aread() -> str:
            """Waits, unless cancelled."""
            return await waits("aread")

        @server.prompt()
        async def aprompt() -> str:
            """Waits, unless cancelled."""
            return await waits("aprompt")

        @server.resource("slow://sync")
        def sread(ctx: Context) -> str:
            """Waits on a worker until cancelled, then returns all the same."""
            self.started["sread"].set()
            ctx.cancel_event.wait(LONG)
            self.returned.set()
            return "late"

        @server.resource("quick://now")
        def now() -> str:
            """Answers at once."""
            return "now"

    def ends(self, name: str) -> list[tuple[bool, str | None]]:
        return [(ok, error) for called, ok, error in self.finished if called == name]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    app = App(tmp_path)
    with serve(app.server):
        yield app


async def abandoned(started: threading.Event, request: Awaitable[Any]) -> None:
    """Send ``request``, and abandon it (the client then cancels it at the server) once its function started."""
    task = asyncio.ensure_future(request)
    waiting = asyncio.ensure_future(asyncio.to_thread(started.wait, 30))
    done, _ = await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
    assert task not in done, f"answered before it was cancelled: {task.result()}"
    assert waiting.result(), "the function did not start"
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_over_streamable_http_the_coroutine_is_cancelled_and_not_answered(app: App, era: str) -> None:
    base = app.server.url
    assert base is not None

    async def reads() -> str:
        async with era_client(base, era) as client:
            await abandoned(app.started["aread"], client.read_resource("slow://async"))
            await abandoned(app.started["aprompt"], client.get_prompt("aprompt"))
            await abandoned(app.started["sread"], client.read_resource("slow://sync"))
            return (await client.read_resource("quick://now")).contents[0].text

    assert asyncio.run(reads()) == "now"  # the session serves on
    for name in ("aread", "aprompt"):  # before: they slept on, uncancelled
        assert app.cancelled[name].wait(30), f"{name}'s coroutine was not cancelled"
    assert app.returned.wait(30), "the sync resource function was not left to finish"
    for name in ("slow://async", "aprompt", "slow://sync"):  # before: the sync read was logged ok
        wait_until(lambda name=name: app.ends(name), f"the end of {name}", 30)
        assert app.ends(name) == [(False, "cancelled")], app.ends(name)


APP = '''
import asyncio
import os
from pathlib import Path

from nanohubmcp import MCPServer

server = MCPServer("cancels-stdio")
MARKS = Path(os.environ["CANCEL_MARKS"])


async def waits(name):
    (MARKS / f"{name}.started").write_text("")
    try:
        await asyncio.sleep(600)
    except asyncio.CancelledError:
        (MARKS / f"{name}.cancelled").write_text("")
        raise
    return "done"


@server.resource("quick://now")
def now() -> str:
    return "now"


@server.prompt()
async def aprompt() -> str:
    return await waits("aprompt")


@server.resource("slow://async")
async def aread() -> str:
    return await waits("aread")
'''


def test_over_stdio_the_coroutine_is_cancelled(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    marks = tmp_path / "marks"
    marks.mkdir()
    env = dict(os.environ, CANCEL_MARKS=str(marks), NANOHUBMCP_STATE_DIR=str(tmp_path / "state"))

    def started(name: str) -> threading.Event:
        seen = threading.Event()
        threading.Thread(target=lambda: (wait_until((marks / f"{name}.started").exists, name, 30), seen.set()),
                         daemon=True).start()
        return seen

    async def reads() -> str:
        async with official_client(run_command(app), env=env) as client:
            await abandoned(started("aread"), client.read_resource("slow://async"))
            await abandoned(started("aprompt"), client.get_prompt("aprompt"))
            for name in ("aread", "aprompt"):  # before: they slept on, uncancelled
                await asyncio.to_thread(wait_until, (marks / f"{name}.cancelled").exists, f"{name}'s cancel", 30)
            return (await client.read_resource("quick://now")).contents[0].text

    assert asyncio.run(reads()) == "now"
