"""Review r25 NIT-2: the ``--workers`` parent marked its stop unclean (exit status 1) for any child it reaped
with a non-zero status — not only its workers. An app whose import started a short command of its own (a
version probe, say) that exited with status 3 made a clean SIGTERM stop exit 1. Only a worker's status counts.

Real processes: a redis-server, the server's parent and workers, a real SIGTERM; every wait is for a condition.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest
from cluster import Server, listeners
from redis_server import RedisServer, free_port, listening
from support import wait_until

pytestmark = pytest.mark.timeout(120)

APP = """import subprocess, sys
from nanohubmcp import MCPServer

# the app's own short command, started at import in the parent, never waited for: the parent reaps it
subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"])
server = MCPServer("stray")


@server.tool()
def add(a: float, b: float) -> float:
    '''Sum.'''
    return a + b
"""


def test_a_child_of_the_app_that_exited_3_leaves_a_clean_stop_at_status_0(redis_server: RedisServer,
                                                                           tmp_path: Path) -> None:
    app = tmp_path / "stray_app.py"
    app.write_text(APP)
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    server = Server(tmp_path, port, redis_server.url, workers=2, env=env, access_log=False, app=app)
    try:
        wait_until(lambda: listening(port) and listeners(port) == 2, "both workers listen", 30)
        os.kill(server.proc.pid, signal.SIGTERM)
        assert server.proc.wait(30) == 0, server.report()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait(10)
