"""trial42 T42-15: a server with a shared state store that is stopping answered requests naming a
live session ``404 Session not found ... initialize again`` once its sessions were closed, while
its link to the store was still closing and its kept-alive connections open. A client drops its
session on a 404; the documented answer of a stopping server is 503 with ``Retry-After`` (retry,
here or on another process), and the session lives on in the store."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx2 as httpx
import pytest
import wire
from redis_server import RedisServer, free_port, listening

pytestmark = pytest.mark.timeout(90)

APP = '''
from nanohubmcp import MCPServer

server = MCPServer("stopping")
'''


def start(app: Path, port: int, state_url: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "nanohubmcp", "run", str(app), "--port", str(port), "--state-url", state_url],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )


def test_a_live_session_is_answered_503_until_the_stopping_servers_connections_close(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    app = tmp_path / "stopping_app.py"
    app.write_text(APP)
    port, other_port = free_port(), free_port()
    stopping, other = (start(app, each, redis_server.url, env, tmp_path / f"{each}.log") for each in (port, other_port))
    url, other_url = (f"http://127.0.0.1:{each}/mcp" for each in (port, other_port))
    try:
        deadline = time.monotonic() + 30
        while not (listening(port) and listening(other_port)) and time.monotonic() < deadline:
            time.sleep(0.05)
        own = wire.initialize(url)
        elsewhere = wire.initialize(other_url)  # held by the other process; the stopping one reads it from Redis
        statuses: Counter[int] = Counter()
        with httpx.Client(timeout=10) as kept:  # one kept-alive connection, opened before the stop
            ping = {"jsonrpc": "2.0", "id": 4, "method": "ping"}
            for session in (own, elsewhere):
                assert kept.post(url, headers=wire.headers(session), json=ping).status_code == 200
            # Redis paused: the stopping server's link to it takes its whole bound (2 s) to close, the
            # moment its sessions are already closed and its connections not yet.
            redis_server.freeze()
            stopping.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    for session in (own, elsewhere):
                        answer = kept.post(url, headers=wire.headers(session), json=ping)
                        statuses[answer.status_code] += 1
                        if answer.status_code == 503:
                            assert answer.headers.get("Retry-After") == "2"
                            assert answer.json()["error"]["code"] == -32000
                except httpx.HTTPError:
                    break  # the connection closed: the stop is over
        redis_server.thaw()
        assert set(statuses) <= {200, 503}, statuses  # never 404: "initialize again"
        assert statuses[503] > 0, statuses
        assert stopping.wait(20) == 0
        for session in (own, elsewhere):  # both live on
            assert wire.result(other_url, session, "ping", {}) == {}
    finally:
        redis_server.thaw()
        for process in (stopping, other):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)
