"""Each process keeps the session records it loaded (no Redis round trip per request), and still
sees at once what a request on another process changed: the writer drops every other copy
before its answer leaves.

- ``logging/setLevel`` on one process governs the very next call on the other, back and forth;
- ``tools/call`` served from the cache sends no command to Redis for its session;
- a DELETE on one process is 404 on the other at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
import redis
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(60)


def build(state_url: str) -> MCPServer:
    server = MCPServer("cached", state_url=state_url)

    @server.tool()
    async def chatty(ctx: Context) -> str:
        """Log one line at info level."""
        ctx.info("a line at info")
        return "done"

    return server


@contextmanager
def two(state_url: str) -> Iterator[list[str]]:
    with ExitStack() as stack:
        yield [stack.enter_context(serve(build(state_url))) + "mcp" for _ in range(2)]


def logged(url: str, session: str, rid: int) -> list[Any]:
    """The ``notifications/message`` a ``chatty`` call on ``url`` sends (its SSE answer)."""
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "chatty", "arguments": {}}}
    events = wire.Events("POST", url, wire.headers(session), body)
    try:
        assert events.status == 200
        seen = []
        while True:
            _, message = events.next()
            if message is None or "result" in message:
                return seen
            if message.get("method") == "notifications/message":
                seen.append(message)
    finally:
        events.close()


def set_level(url: str, session: str, level: str, rid: int) -> None:
    reply = wire.call(url, session, "logging/setLevel", {"level": level}, rid)
    assert reply.status_code == 200, reply.text
    assert "result" in reply.json(), reply.text


def test_a_log_level_set_on_one_process_governs_the_next_call_on_the_other(redis_server: RedisServer) -> None:
    with two(redis_server.url) as (first, second):
        session = wire.initialize(first)
        assert logged(first, session, 2) == []  # no level set yet; both processes hold the record now
        assert logged(second, session, 3) == []
        rid = 10
        for turn in range(12):
            writer, reader = (first, second) if turn % 2 == 0 else (second, first)
            level = "error" if turn % 4 < 2 else "debug"
            set_level(writer, session, level, rid)
            got = logged(reader, session, rid + 1)
            expected = 0 if level == "error" else 1
            assert len(got) == expected, f"turn {turn}: level {level} not seen by the other process"
            rid += 2


def test_calls_from_the_cache_send_nothing_to_redis_for_their_session(redis_server: RedisServer) -> None:
    with two(redis_server.url) as (first, second):
        session = wire.initialize(first)
        wire.tool(second, session, "chatty", {}, 2)  # loaded once
        client = redis.Redis.from_url(redis_server.url, socket_timeout=20)  # a lost marker fails, not hangs
        with client.monitor() as monitor:
            wire.tool(second, session, "chatty", {}, 3)
            wire.tool(second, session, "chatty", {}, 4)
            wire.tool(first, session, "chatty", {}, 5)
            client.set("marker", "1")
            commands = []
            for seen in monitor.listen():
                if "marker" in seen["command"]:
                    break
                commands.append(seen["command"])
        about_session = [c for c in commands if session in c]
        # at most one reload each (a lease ran out), never one per call
        assert sum("GETEX" in c for c in about_session) <= 2, about_session


def test_a_session_deleted_on_one_process_is_gone_on_the_other(redis_server: RedisServer) -> None:
    with two(redis_server.url) as (first, second):
        session = wire.initialize(first)
        wire.tool(second, session, "chatty", {}, 2)  # the second holds it
        gone = wire.httpx.delete(first, headers=wire.headers(session), timeout=10)
        assert gone.status_code == 204
        # at once: the DELETE is answered once every process holding the session let it go
        assert wire.call(second, session, "tools/call", {"name": "chatty", "arguments": {}}, 3).status_code == 404
