"""trial42 T42-15: a server with a shared state store that is stopping answered requests naming a
live session ``404 Session not found ... initialize again`` once its sessions were closed, while
its link to the store was still closing and its kept-alive connections open. A client drops its
session on a 404; the documented answer of a stopping server is 503 with ``Retry-After`` (retry,
here or on another process), and the session lives on in the store."""

from __future__ import annotations

import contextlib
import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
import wire
from app_processes import app_processes
from redis_server import RedisServer

pytestmark = pytest.mark.timeout(90)

APP = '''
from nanohubmcp import MCPServer

server = MCPServer("stopping")
'''


@contextlib.contextmanager
def thawed(redis: RedisServer) -> Iterator[None]:
    """Redis answering again on leaving (before the processes are killed), however the test ended."""
    try:
        yield
    finally:
        redis.thaw()


def test_a_live_session_is_answered_503_until_the_stopping_servers_connections_close(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    app = tmp_path / "stopping_app.py"
    app.write_text(APP)
    with app_processes(app, redis_server.url, tmp_path) as (stopping, other), thawed(redis_server):
        url, other_url = stopping.url, other.url
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
            stopping.proc.send_signal(signal.SIGTERM)
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
        assert stopping.proc.wait(20) == 0
        for session in (own, elsewhere):  # both live on
            assert wire.result(other_url, session, "ping", {}) == {}
