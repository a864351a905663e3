"""trial42 T42-12: with ``--workers``, a SIGTERM (a service manager's stop) or SIGINT (Ctrl-C) that
reached the parent while it forked its workers was lost: its handler raised ``SystemExit`` inside
``os.fork``'s at-fork hooks, where Python ignores exceptions ("Exception ignored in ..."), so the
parent forked on and then waited for ever, every worker serving. Here the served app itself sends the
signal from an at-fork hook, at a chosen fork: the whole server must still stop, with status 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cluster import group_members
from redis_server import RedisServer, free_port

pytestmark = pytest.mark.timeout(120)

APP = """
import os
import signal

from nanohubmcp import MCPServer

server = MCPServer("startrace")
PARENT = os.getpid()
SIGNAL = signal.Signals[os.environ["STOP_SIGNAL"]]
AT_FORK = int(os.environ["STOP_AT_FORK"])
forks = []


def hook():
    if os.getpid() != PARENT:
        return
    forks.append(1)
    if len(forks) == AT_FORK:
        os.kill(PARENT, SIGNAL)
        for _ in range(3):  # a loop: the interpreter runs the signal's handler here, inside the hook
            pass


os.register_at_fork(**{os.environ["STOP_HOOK"]: hook})
"""


@pytest.mark.parametrize(
    ("name", "hook", "at_fork"),
    [
        ("SIGTERM", "after_in_parent", 2),  # between two forks, as a service manager stops it
        ("SIGINT", "before", 2),  # in the middle of a fork, as Ctrl-C
        ("SIGTERM", "before", 1),  # in the first fork
        ("SIGINT", "after_in_parent", 3),  # after the last fork, before the parent watches
    ],
)
def test_the_server_stops_whatever_fork_the_signal_lands_in(
    redis_server: RedisServer, tmp_path: Path, name: str, hook: str, at_fork: int
) -> None:
    app = tmp_path / "startrace_app.py"
    app.write_text(APP)
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": "",
           "STOP_SIGNAL": name, "STOP_HOOK": hook, "STOP_AT_FORK": str(at_fork)}
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "nanohubmcp", "run", str(app), "--port", str(free_port()), "--workers", "3",
             "--state-url", redis_server.url],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )
    try:
        try:
            code = server.wait(30)  # the parent waits at most 15 s for its workers
        except subprocess.TimeoutExpired:
            code = None
        text = log.read_text(errors="replace")
        assert code == 0, f"the server did not stop (exit {code}):\n{text}"
        deadline = time.monotonic() + 10
        while group_members(server.pid) and time.monotonic() < deadline:  # (reaped by the parent: none)
            time.sleep(0.05)
        assert not group_members(server.pid), text
        assert "Exception ignored" not in text, text
        assert "Traceback" not in text, text
    finally:
        for pid in group_members(server.pid):
            os.kill(pid, signal.SIGKILL)
        if server.poll() is None:
            server.kill()
            server.wait(10)
