"""trial60 F3: a client that closes stdin right after a quick call (how one tries a stdio server by hand:
``printf ... | nanohubmcp run app.py --transport stdio``) gets the call's answer, and stderr does not say the stop
waited for it or told it to cancel: before, "stopped; waiting for 1 running tool call(s) to return (they were told
to cancel; ...)" was printed although the call then answered normally. A call still running a moment later is
still named (held by tests/server/test_ctrl_c_during_a_slow_tool.py and the stop's line tests)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

APP = '''
import time
from nanohubmcp import MCPServer

server = MCPServer("quick")


@server.tool()
def add(a: float, b: float) -> float:
    """Adds, in a fifth of a second."""
    time.sleep(0.2)
    return a + b
'''


def test_input_closed_right_after_a_quick_call_answers_it_without_a_cancel_line(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
    ]
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "run", str(app), "--transport", "stdio"],
        input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True, text=True, timeout=30,
        cwd=tmp_path)
    took = time.monotonic() - began
    answers = {message.get("id"): message for message in map(json.loads, done.stdout.splitlines())}
    assert answers[2]["result"]["content"][0]["text"] == "5.0", done.stdout
    assert "told to cancel" not in done.stderr, done.stderr
    assert "waiting for" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert took < 8, f"took {took:.1f} s"
