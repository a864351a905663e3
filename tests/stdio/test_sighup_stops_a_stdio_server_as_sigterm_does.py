"""SIGHUP (a desktop client's terminal closing) stops a stdio server as SIGTERM does, while SIGHUP has its default
action: the running call is answered with the stopping server's error, the server says why it stops, and the process
exits 0 within its exit grace. Started with SIGHUP ignored (under ``nohup``), it keeps serving. Before, stdio took
SIGINT and SIGTERM only (its own copy of the stop signals), so SIGHUP's default action ended the process at once,
the call unanswered (review r43 R43-3)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stdio_support import Piped
from support import wait_until

from nanohubmcp.processes.workers import HANGUP_LINE

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="a platform without SIGHUP")

APP = """
import asyncio, sys
from nanohubmcp import MCPServer
server = MCPServer("hangup")

@server.tool()
async def stubborn() -> str:
    '''Never looks at ctx.is_cancelled().'''
    print("stubborn: running", file=sys.stderr, flush=True)
    await asyncio.sleep(60)
    return "late"
"""
STOPPING = -32000


@pytest.fixture
def stdio(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Piped]:
    """``nanohubmcp run app.py --transport stdio --exit-grace 3``; SIGHUP ignored when the test is parametrized
    ``ignored`` (as ``nohup`` starts it)."""
    app = tmp_path / "app.py"
    app.write_text(APP)
    log = tmp_path / "stderr.log"
    ignored = getattr(request, "param", False)

    def ignore_hangup() -> None:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-u", "-m", "nanohubmcp", "run", str(app), "--transport", "stdio", "--exit-grace", "3"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sink, cwd=tmp_path,
            preexec_fn=ignore_hangup if ignored else None)
    try:
        yield Piped(process, log)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)


def call(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "stubborn", "arguments": {}}}


HANGUP = getattr(signal, "SIGHUP", signal.SIGTERM)


@pytest.mark.parametrize("signum", [signal.SIGTERM, HANGUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_answers_the_running_call_and_exits_zero(stdio: Piped, signum: int) -> None:
    stdio.send(call(9))
    wait_until(lambda: "stubborn: running" in stdio.stderr, "the tool to run")
    stdio.process.send_signal(signum)
    assert stdio.process.stdout is not None
    lines = [json.loads(line) for line in stdio.process.stdout]
    assert stdio.process.wait(30) == 0, stdio.stderr
    assert lines, stdio.stderr
    assert lines[-1]["id"] == 9
    assert lines[-1]["error"]["code"] == STOPPING, lines[-1]
    assert "Traceback" not in stdio.stderr, stdio.stderr
    assert (HANGUP_LINE in stdio.stderr) == (signum == HANGUP), stdio.stderr


@pytest.mark.parametrize("stdio", [True], indirect=True, ids=["nohup"])
def test_sighup_ignored_as_under_nohup_keeps_it_serving(stdio: Piped) -> None:
    stdio.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert stdio.line()["id"] == 1  # serving, its signal handlers taken
    stdio.process.send_signal(signal.SIGHUP)  # (an ignored signal is discarded as it is sent)
    stdio.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert stdio.line() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert stdio.process.poll() is None
    assert HANGUP_LINE not in stdio.stderr


def test_a_sighup_repeated_during_the_stop_is_not_said_again(stdio: Piped) -> None:
    """A shell passes its own SIGHUP on: the stop goes on as it was, and says why it stops once (trial74 F6: the
    line came again at each SIGHUP, as if the server stopped twice)."""
    stdio.send(call(9))
    wait_until(lambda: "stubborn: running" in stdio.stderr, "the tool to run")
    stdio.process.send_signal(HANGUP)
    wait_until(lambda: "waiting for 1 running tool call(s)" in stdio.stderr, "the stop to wait for the call")
    stdio.process.send_signal(HANGUP)  # within the call's moment to answer (the grace less 2 s: 1 s)
    assert stdio.process.stdout is not None
    lines = [json.loads(line) for line in stdio.process.stdout]
    assert stdio.process.wait(30) == 0, stdio.stderr
    assert lines[-1]["error"]["code"] == STOPPING, lines[-1]
    assert stdio.stderr.count(HANGUP_LINE) == 1, stdio.stderr
