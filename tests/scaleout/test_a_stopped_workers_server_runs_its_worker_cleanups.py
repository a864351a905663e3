"""review r27 #7: the ``--workers`` parent runs the clean-ups registered with ``after_worker_death`` each time a
worker ended, its docstring says, "or stopped as told (it may have been ended by its exit grace's timer, running no
exit code)". It ran them for one worker stopped alone, never when the whole server was stopped (SIGTERM from a
service manager, a terminal's Ctrl-C): a worker ended by its exit grace's timer or its watchdog then left its run
folders (a Rappture driver file or a Sim2L notebook, with the caller's inputs) for the next start.

Now the parent runs them once every worker is gone at a stop too. A real redis-server, a real ``nanohubmcp run
--workers 2`` process, real signals; every wait is for a condition."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from redis_server import RedisServer, free_port, listening
from support import wait_until

pytestmark = pytest.mark.timeout(120)

APP = """
import os
from nanohubmcp import MCPServer
from nanohubmcp.server.wire.worker_cleanups import after_worker_death

server = MCPServer("cleanups")
NOTE = os.environ["CLEANUP_NOTE"]


def note() -> None:
    with open(NOTE, "a") as out:
        out.write(f"{os.getpid()}\\n")


after_worker_death(note)


@server.tool()
def add(a: float, b: float) -> float:
    '''Add.'''
    return a + b
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_the_parent_runs_the_worker_cleanups_when_the_server_stops(
    redis_server: RedisServer, tmp_path: Path, sig: signal.Signals
) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    note = tmp_path / "note"
    env = {**os.environ, "CLEANUP_NOTE": str(note), "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "nanohubmcp", "run", str(app), "--port", str(port), "--workers", "2",
             "--state-url", redis_server.url],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        wait_until(lambda: server.poll() is not None or (listening(port) and b"MCP Server" in log.read_bytes()),
                   "the server to listen")
        assert server.poll() is None, log.read_text()
        server.send_signal(sig)  # to the parent alone: it passes the signal on to its workers
        assert server.wait(60) == 0, log.read_text()
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)
    ran = note.read_text().split() if note.exists() else []
    assert ran == [str(server.pid)], f"clean-ups run (by pid): {ran}\n{log.read_text()}"
