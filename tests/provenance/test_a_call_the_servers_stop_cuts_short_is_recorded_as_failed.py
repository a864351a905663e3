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

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, wait_until

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
async def test_calls_the_stop_cuts_short_are_recorded_as_failed(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    log = tmp_path / "stderr.log"
    state = tmp_path / "state"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-u", "-m", "nanohubmcp", "run", "app.py", "--port", "0", "--exit-grace", "4"],
            stdout=subprocess.PIPE, stderr=sink, stdin=subprocess.DEVNULL, cwd=tmp_path,
            env={**os.environ, "NANOHUBMCP_STATE_DIR": str(state)})
    assert process.stdout is not None
    try:
        port = None
        for line in process.stdout:
            if b"127.0.0.1:" in line:
                port = int(line.decode().split("127.0.0.1:", 1)[1].split("/", 1)[0].split()[0])
                threading.Thread(target=process.stdout.read, daemon=True).start()
                break
        assert port is not None, log.read_text()
        errors: list[MCPError] = []
        with anyio.fail_after(120):
            try:
                async with mcp_client(f"http://127.0.0.1:{port}/mcp") as client, anyio.create_task_group() as group:

                    async def call(tool: str) -> None:
                        try:
                            await client.call_tool(tool, {})
                        except MCPError as exc:
                            errors.append(exc)

                    for tool in TOOLS:
                        group.start_soon(call, tool)
                    await anyio.to_thread.run_sync(lambda: wait_until(
                        lambda: all(f"{t}: running" in log.read_text() for t in TOOLS), "the three calls running", 60))
                    process.send_signal(signal.SIGTERM)
            except BaseException:  # the session's teardown against a server now gone
                if len(errors) < len(TOOLS):
                    raise
        assert process.wait(60) == 0, log.read_text()
        assert sorted(e.error.code for e in errors) == [-32000] * 3, errors
        listed = subprocess.run([sys.executable, "-m", "nanohubmcp", "provenance", "list", "--state-dir", str(state)],
                                capture_output=True, text=True, timeout=60)
        assert listed.returncode == 0, listed.stderr + log.read_text()
        for tool in TOOLS:
            lines = [line for line in listed.stdout.splitlines() if f" {tool} " in line]
            assert len(lines) == 1, listed.stdout
            assert "failed" in lines[0], listed.stdout
            assert "the server stopped while this call ran" in lines[0], listed.stdout
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
