"""A piped stdio client (``printf ... | nanohubmcp run app.py --transport stdio``) closes its input at once and reads
the answers: an ``async def`` call that ends a moment after the end of input is answered (review r44, R44-6: since
the end of input cancelled every running coroutine at once, such a pipe printed nothing for a tool that awaited
0.3 s, while a sync tool of the same length answered). A call still running a second after the end of input is
cancelled as before (tests/stdio/test_a_client_closing_its_input_cancels_its_running_async_call.py).

A real ``nanohubmcp run`` over stdio, its whole input written and closed before it answers anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

APP = '''
import asyncio
from nanohubmcp import MCPServer

server = MCPServer("piped")


@server.tool()
async def soon(a: int) -> int:
    """Doubles ``a`` after 0.3 s."""
    await asyncio.sleep(0.3)
    return 2 * a
'''
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}}


def test_a_call_ending_soon_after_the_end_of_input_is_answered(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "soon", "arguments": {"a": 21}}},
    ]
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", str(app), "--transport", "stdio"],
                          input="".join(json.dumps(line) + "\n" for line in lines).encode(), capture_output=True,
                          timeout=60, cwd=tmp_path,
                          env={**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")})
    assert done.returncode == 0, done.stderr.decode()
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == [1, 2], (answers, done.stderr.decode())  # before: [1] (the call cancelled, no answer)
    assert answers[2]["result"]["content"][0]["text"] == "42"
