"""A call running when its server is stopped (SIGTERM) leaves a provenance record, ``failed`` with "the
server stopped while this call ran: it did not complete; it may be sent again", whether the call ended
once told to cancel (a cooperative tool raising) or was still running when the grace ran out (an
``async def`` awaiting, a sync function sleeping on its thread). Its client got the stopping server's
-32000. Real ``nanohubmcp run`` process, the official client, a real SIGTERM, the records read back with
``nanohubmcp provenance list``.

Found by a fresh-user trial (trial51 F7): none of the three calls had a record (the README says every
call leaves one; a call its client cancels had one).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from stopped_calls import stop_while_running

APP = """
import asyncio, sys, time
from nanohubmcp import MCPServer
server = MCPServer("stopped")

@server.tool()
async def stubborn() -> str:
    '''Never looks at ctx.is_cancelled().'''
    print("stubborn: running", file=sys.stderr, flush=True)
    await asyncio.sleep(60)
    return "late"

@server.tool()
def blocking() -> str:
    '''A sync function that sleeps.'''
    print("blocking: running", file=sys.stderr, flush=True)
    time.sleep(60)
    return "late"

@server.tool()
def cooperative(ctx) -> str:
    '''Raises once told to cancel.'''
    print("cooperative: running", file=sys.stderr, flush=True)
    for _ in range(600):
        if ctx.is_cancelled():
            raise RuntimeError("cancelled by ctx")
        time.sleep(0.1)
    return "late"
"""

TOOLS = ("stubborn", "blocking", "cooperative")


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.anyio
async def test_calls_the_stop_cuts_short_are_recorded_as_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped = await stop_while_running(tmp_path, monkeypatch, APP, TOOLS)
    assert sorted(e.error.code for e in stopped.errors) == [-32000] * 3, stopped.errors
    rows = stopped.rows
    for tool in TOOLS:
        lines = [line for line in rows if f" {tool} " in line]
        assert len(lines) == 1, rows
        assert "failed" in lines[0], rows
        assert "the server stopped while this call ran" in lines[0], rows
