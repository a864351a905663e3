"""trial42 T42-13: stopping a ``--workers`` server while tool calls ran printed one "waiting for N
running tool call(s) ... press Ctrl-C again to quit now" per worker, even for a service manager's
SIGTERM, where the page promises the server exits "writing nothing". Now the workers say nothing:
at Ctrl-C the parent says it once for all of them; at SIGTERM nothing is written.

Served with ``--exit-grace 5``: the workers' time for answers (3 s: the grace less 2 s), at whose start the parent
says it, then the wait for the calls (it ends 1 s before the grace), rather than the 10 s of the default."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import wire
from cluster import calls_on_every_worker
from redis_server import RedisServer, free_port, listening

pytestmark = pytest.mark.timeout(120)

APP = """
import os
import pathlib
import time

from nanohubmcp import Context, MCPServer

server = MCPServer("hints", workers=48)  # a thread for each call calls_on_every_worker may start on one process


@server.tool()
def hold(path: str, ctx: Context) -> str:
    ctx.report_progress(1, 2, str(os.getpid()))  # which worker runs it
    deadline = time.monotonic() + 40
    while not pathlib.Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "released"
"""
HINT = "waiting for"
GRACE = "5"
"""``--exit-grace``: 3 s for the calls to answer, 1 s for the answers of those cut off, the exit's own 1 s."""


@pytest.mark.parametrize(("name", "hints"), [("SIGINT", 1), ("SIGTERM", 0)])
def test_the_wait_for_running_calls_is_told_once_at_ctrl_c_and_never_at_sigterm(
    redis_server: RedisServer, tmp_path: Path, name: str, hints: int
) -> None:
    app = tmp_path / "hints_app.py"
    app.write_text(APP)
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "nanohubmcp", "run", str(app), "--port", str(port), "--workers", "2",
             "--state-url", redis_server.url, "--exit-grace", GRACE],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )
    release = tmp_path / "release"
    calls: list[wire.Events] = []
    try:
        deadline = time.monotonic() + 30
        while not listening(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        session = wire.initialize(url)
        calls += calls_on_every_worker(url, session, "hold", {"path": str(release)})[0]  # (connections spread by hash)
        before = log.read_text(errors="replace")
        if name == "SIGINT":
            os.killpg(server.pid, signal.SIGINT)  # as Ctrl-C at a terminal: the whole group
            deadline = time.monotonic() + 20
            while HINT not in log.read_text(errors="replace") and time.monotonic() < deadline:
                time.sleep(0.05)
        else:
            os.kill(server.pid, signal.SIGTERM)  # as a service manager: the parent
        assert server.wait(30) == 0
        after = log.read_text(errors="replace")[len(before):]
        told = [line for line in after.splitlines() if HINT in line]
        assert len(told) == hints, after
        if hints:
            assert told[0].startswith("nanohubmcp: stopped; waiting for "), told
            assert "press Ctrl-C again to quit now" in told[0]
            # the figures of --exit-grace: each worker's bound, and the parent's kill 5 s past it
            figures = f"each worker exits within {GRACE} s of the stop, or is killed {int(GRACE) + 5} s after it"
            assert figures in told[0], told
        assert "Traceback" not in after, after
    finally:
        release.touch()
        for call in calls:
            call.close()
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)
