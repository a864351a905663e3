"""An ``async def`` tool that blocks (``time.sleep``) holds the event loop: Python cannot pre-empt it, so another
client's call waits and ``tool_timeout``'s timer cannot run (trial63 F1). What the server does about it: the step
that held the loop is logged once at WARNING, naming the tool, the time and what to write instead; a call that
ended past its ``tool_timeout`` is answered as the timeout it was (it was answered ``slept 4.0``, isError false,
with timeout 2, and nothing was logged). An ``async def`` tool that awaits is not said to hold anything."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import anyio
import pytest
from support import app_server, post_tool, wait_until, watched_client

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

APP = """
import time
from pathlib import Path
from nanohubmcp import MCPServer

server = MCPServer("held", tool_timeout=0.5)

@server.tool()
async def block(seconds: float) -> str:
    '''Blocks the event loop (a mistake: time.sleep in an async def).'''
    Path(__file__).with_name("started").touch()
    time.sleep(seconds)
    return f"slept {seconds}"

@server.tool()
def quick() -> str:
    '''Answers at once.'''
    return "ok"
"""

BLOCK_SECONDS = 2.0


def test_a_blocking_async_tool_delays_others_is_logged_and_answered_as_timed_out(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    with app_server(app, log=tmp_path / "server.log") as served:

        async def scenario() -> tuple[object, float, float]:
            async with watched_client(served) as client:
                with anyio.fail_after(60):
                    t0 = time.monotonic()
                    call = asyncio.ensure_future(client.call_tool("block", {"seconds": BLOCK_SECONDS}))
                    while not (tmp_path / "started").exists():
                        assert not call.done(), call.result()
                        await asyncio.sleep(0.02)
                    started = time.monotonic()
                    # another client's call, made while the loop is held: it waits for the blocking step
                    assert (await asyncio.to_thread(post_tool, served.url, "quick", {})) == {"result": "ok"}
                    other_waited = time.monotonic() - started
                    result = await call
                    return result, other_waited, time.monotonic() - t0

        result, other_waited, took = asyncio.run(scenario())
        assert other_waited > BLOCK_SECONDS / 2, f"the other client's call took {other_waited:.2f} s"
        assert took >= BLOCK_SECONDS
        assert result.is_error, result  # type: ignore[attr-defined]
        text = result.content[0].text  # type: ignore[attr-defined]
        assert text.startswith("tool 'block' did not finish within 0.5 s (tool_timeout); it held the event loop "
                               "for 2.0 s (a blocking call in an async def function), which no timeout can "
                               "interrupt: it ran to its end and its result was dropped"), text
        log = wait_until(lambda: "held the event loop" in served.output and served.output, "the server's warning")
    said = [line for line in log.splitlines() if "held the event loop for" in line and "in one step" in line]
    assert len(said) == 1, log
    assert said[0].startswith("tool 'block' held the event loop for 2.0 s in one step (no await) while other calls "
                              "waited: "), said[0]
    assert "make it a plain def" in said[0], said[0]
    assert "await asyncio.to_thread(...)" in said[0], said[0]


def test_without_a_timeout_the_value_is_answered_and_the_hold_still_logged(caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("held")

    @server.tool()
    async def block() -> str:
        """Blocks the loop for 1.2 s."""
        time.sleep(1.2)
        return "done"

    with caplog.at_level(logging.WARNING, logger="nanohubmcp.tool"), in_memory(server) as client:
        result = client.call_tool("block", {})
    assert not result["isError"], result
    assert result["content"][0]["text"] == "done", result
    said = [r.getMessage() for r in caplog.records if "held the event loop" in r.getMessage()]
    assert len(said) == 1, said
    assert said[0].startswith("tool 'block' held the event loop for 1.2 s in one step"), said


def test_an_async_tool_that_awaits_is_not_said_to_hold_the_loop(caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("awaits", tool_timeout=30)

    @server.tool()
    async def patient(steps: int) -> str:
        """Waits 1.5 s in all, in short awaited steps (no step holds the loop)."""
        for _ in range(steps):
            await asyncio.sleep(1.5 / steps)
        return "waited"

    with caplog.at_level(logging.WARNING, logger="nanohubmcp.tool"), in_memory(server) as client:
        result = client.call_tool("patient", {"steps": 3})
    assert not result["isError"], result
    assert result["content"][0]["text"] == "waited", result
    assert not [r for r in caplog.records if "held the event loop" in r.getMessage()]
