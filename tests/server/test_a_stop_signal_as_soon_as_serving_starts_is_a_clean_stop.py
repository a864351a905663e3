"""A stop signal sent the moment a single-process server says it is up (its ``server_started`` event, the
banner printed just after it) stops it cleanly: ``run()`` returns, the script goes on, the exit status is 0.

The loop took SIGTERM/SIGINT only after it had started serving and printed the banner, so a supervisor or a
script that stopped the server as soon as it read the banner could kill it with the signal's default action
(status -15, nothing after ``run()`` ran)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
APP = """
import os, signal, sys
from nanohubmcp import MCPServer

server = MCPServer("prompt-stop")

@server.tool()
def add(a: int, b: int) -> int:
    '''Adds.'''
    return a + b

server.events.subscribe(lambda event, data: os.kill(os.getpid(), signal.{sig}), ["server_started"])
server.run(port=0, host="127.0.0.1")
print("after run", flush=True)
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_stop_signal_at_the_server_started_event_is_a_clean_stop(tmp_path: Path, sig: str) -> None:
    script = tmp_path / "app.py"
    script.write_text(APP.format(sig=sig))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert "after run" in done.stdout, done.stderr
    assert -getattr(signal, sig) != done.returncode
