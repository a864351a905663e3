"""A session evicted to make room is ended in Redis too, so the limits hold (trial14 F4); a
principal's cap holds across processes.

With a shared store an evicted session used to be dropped from the evicting process only: its
record stayed in Redis, and its next request, on any process, loaded it again with the limits
skipped, so one principal kept 16,300 sessions alive through one process against a cap of 1,000.
"""

from __future__ import annotations

import time
from contextlib import ExitStack

import pytest
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(60)

CAP = 3
AUTH = {"Authorization": "Bearer a-token"}


def build(state_url: str) -> MCPServer:
    server = MCPServer("capped", state_url=state_url, auth=StaticTokenVerifier({"a-token": "alice"}))

    @server.tool()
    def hello() -> str:
        """Say hello."""
        return "hello"

    return server


def status(url: str, session: str) -> int:
    reply = wire.httpx.post(
        url,
        headers={**wire.headers(session), "Accept": "application/json", **AUTH},
        json={"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        timeout=10,
    )
    return reply.status_code


def test_a_session_evicted_for_its_principals_cap_is_gone_on_every_process(redis_server: RedisServer) -> None:
    capped = build(redis_server.url)
    capped.core.sessions.max_per_principal = CAP
    with ExitStack() as stack:
        first = stack.enter_context(serve(capped)) + "mcp"
        second = stack.enter_context(serve(build(redis_server.url))) + "mcp"
        sessions = [wire.initialize(first, extra=AUTH) for _ in range(CAP + 2)]
        evicted, kept = sessions[:2], sessions[2:]
        deadline = time.monotonic() + 10  # the record's delete runs just after the eviction
        while time.monotonic() < deadline and any(status(second, s) != 404 for s in evicted):
            time.sleep(0.05)
        assert [status(second, s) for s in evicted] == [404, 404]
        assert [status(first, s) for s in evicted] == [404, 404]
        assert [status(first, s) for s in kept] == [200] * CAP
        assert [status(second, s) for s in kept] == [200] * CAP


def test_a_principals_sessions_past_the_cap_on_two_processes_end_the_oldest(redis_server: RedisServer) -> None:
    """Each process counted a principal's sessions in its own table, so N processes admitted N times
    the cap; now a session opened past it, on any process, ends the principal's oldest-opened one."""
    with ExitStack() as stack:
        servers = [build(redis_server.url), build(redis_server.url)]
        for server in servers:
            server.core.sessions.max_per_principal = CAP
        first, second = (stack.enter_context(serve(server)) + "mcp" for server in servers)
        # Two on each process (within each one's own cap), then one more: two past the cap in all.
        sessions = [wire.initialize(url, extra=AUTH) for url in (first, first, second, second, first)]
        ended, kept = sessions[:2], sessions[2:]
        deadline = time.monotonic() + 10  # the oldest are ended just after the new ones are stored
        while time.monotonic() < deadline and any(status(url, s) != 404 for s in ended for url in (first, second)):
            time.sleep(0.05)
        assert [status(url, s) for s in ended for url in (first, second)] == [404] * 4
        assert [status(url, s) for s in kept for url in (first, second)] == [200] * 6
