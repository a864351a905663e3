"""A stdio client that closes its input (it quit) has its running ``async def`` call cancelled at once, as a
client's ``notifications/cancelled`` or a closed 2026-07-28 POST cancels it: no answer can reach it any more, so
the server does not wait out the call, or its exit grace, for nobody (fresh-user trial 73, F4: a desktop client
that quit waited 8 s for a call parked in an ``await``).

A real ``python app.py`` over stdio; the tool notes the ``CancelledError`` its ``await`` raised in a file. The
cancelled coroutine gets no answer and is recorded ``cancelled`` (trial74 F4: "Request cancelled: the client closed
its input" was written, with a provenance key); a sync tool that returns once it reads ``ctx.is_cancelled()`` is
answered with its value, as the client may still read the output (``printf ... | nanohubmcp run app.py``).
Nothing blocks the event loop there, so stderr says nothing of a blocked one (trial76 F2: "the event loop does not
answer (an async tool blocking it?)" came 1 s after every such end of input, the watchdog's notice racing the loop's
1 s moment for the running calls).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from provenance_rows import provenance_rows

APP = '''
import asyncio, sys
from nanohubmcp import Context, MCPServer

server = MCPServer("quits")


@server.tool()
async def slow() -> str:
    """Waits 45 s."""
    try:
        await asyncio.sleep(45)
    except asyncio.CancelledError:
        open(sys.argv[1], "w").write("cancelled")
        raise
    return "done"


@server.tool()
def spin(ctx: Context) -> str:
    """Waits on a thread, and returns early once cancelled."""
    return "stopped early" if ctx.cancel_event.wait(45) else "done"


server.run(transport="stdio", exit_grace=120)
'''
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "quits", "version": "1"}}


def test_closing_the_input_cancels_the_running_coroutine_and_the_process_ends(tmp_path: Path) -> None:
    app, mark = tmp_path / "app.py", tmp_path / "cancelled.txt"
    app.write_text(APP)
    state = tmp_path / "state"
    proc = subprocess.Popen([sys.executable, str(app), str(mark)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "NANOHUBMCP_STATE_DIR": str(state)})
    try:
        assert proc.stdin is not None
        assert proc.stdout is not None

        def send(message: dict[str, object]) -> None:
            proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        assert b'"id":1' in proc.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow", "arguments": {}}})
        send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "spin", "arguments": {}}})
        send({"jsonrpc": "2.0", "id": 3, "method": "ping"})  # answered once the calls run (tasks of their own)
        assert b'"id":3' in proc.stdout.readline()
        proc.stdin.close()
        after = [json.loads(line) for line in proc.stdout.read().splitlines()]  # up to the process's exit
        # Before: the server waited for the call (45 s), within its 120 s grace.
        assert proc.stderr is not None
        said = proc.stderr.read().decode()
        assert proc.wait(30) == 0, said
        assert "does not answer" not in said, said
        assert mark.read_text() == "cancelled"
        assert [answer["id"] for answer in after] == [4], after  # before: slow's "Request cancelled" answer too
        assert after[0]["result"]["content"][0]["text"] == "stopped early"
        rows = {line.split()[1]: line for line in provenance_rows(state)}
        assert " cancelled " in rows["slow"], rows
        assert " completed " in rows["spin"], rows
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
