"""A server served from a thread (``server.start()`` / ``server.stop()``) with ``state_url="redis://…"``, stopped
while GET ``/mcp`` streams are open: each stream's reader (a task reading the session's log in Redis,
:class:`~nanohubmcp.server.wire.relay_streams.RelayStream`) ends before the server's loop closes.

Before, the stop cancelled the readers, then closed its loop one turn later, with them still ending (a cancelled read
takes a few turns): each was destroyed later by the collector, "Task was destroyed but it is pending!" and
"Exception ignored in: <coroutine object RelayStream._read_log …> RuntimeError: Event loop is closed" on the
script's stderr (a PytestUnraisableExceptionWarning in the scale-out run), and the readers' clean-up never ran.
Real redis-server, real server, raw HTTP streams; Redis's own client list says what is left connected."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from urllib.parse import urlsplit

import pytest
import redis
import wire
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

STREAMS = 40


async def open_streams(url: str, sessions: list[str]) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    parts = urlsplit(url)
    pairs = [await asyncio.open_connection(parts.hostname, parts.port) for _ in sessions]
    for (_, writer), session in zip(pairs, sessions, strict=True):
        writer.write(
            f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n"
            f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {wire.VERSION}\r\n\r\n".encode()
        )
    heads = await asyncio.wait_for(asyncio.gather(*(r.readline() for r, _ in pairs)), 30)
    assert [h.split(b" ")[1] for h in heads] == [b"200"] * len(sessions), heads
    return pairs


def test_the_stop_ends_every_open_streams_reader_before_its_loop_closes(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.ERROR, logger="asyncio")
    unraisable: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook",
                        lambda u: unraisable.append(f"{u.err_msg} {u.object!r}: {u.exc_value!r}"))
    server = MCPServer("relaystop", state_url=f"{redis_server.url}?max_connections=20")

    @server.tool()
    def hello() -> str:
        """Say hello."""
        return "hello"

    admin = redis.Redis(port=redis_server.port)
    try:
        with serve(server) as base:
            url = base + "mcp"
            serving = server.core.loop
            assert serving is not None
            sessions = [wire.initialize(url) for _ in range(STREAMS)]
            loop = asyncio.new_event_loop()
            try:
                pairs = loop.run_until_complete(open_streams(url, sessions))
                for _, writer in pairs:  # the clients go as the server stops (a reconnect burst's opens, a restart)
                    writer.close()
            finally:
                loop.close()
        left = [t for t in asyncio.all_tasks(serving) if not t.done()]
        assert not left, left  # (each would be destroyed by the collector, saying so)
        del server, hello
        gc.collect()
        destroyed = [r.getMessage() for r in caplog.records if r.name == "asyncio"]
        assert not destroyed, destroyed
        assert not unraisable, unraisable
        # Nothing of the stopped server stays connected to Redis (the admin client is the one left).
        wait_until(lambda: admin.info("clients")["connected_clients"] == 1, "the server's connections to close")
    finally:
        admin.close()




def test_a_task_left_running_on_the_threads_loop_is_ended_by_the_stop(caplog: pytest.LogCaptureFixture) -> None:
    """Whatever still runs on the loop when the drain is over (here a tool's background wait, shaped as the relay
    reader's shielded read) is cancelled and waited for before the loop closes (before: left pending, every run)."""
    caplog.set_level(logging.ERROR, logger="asyncio")
    server = MCPServer("leftover")
    started: list[asyncio.Task[None]] = []

    @server.tool()
    async def linger() -> str:
        """Start a background wait and answer at once."""
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        started.append(asyncio.ensure_future(asyncio.wait_for(asyncio.shield(never), 3600)))
        return "started"

    with serve(server) as base:
        session = wire.initialize(base + "mcp")
        assert wire.result(base + "mcp", session, "tools/call", {"name": "linger", "arguments": {}})["content"]
        wait_until(lambda: started, "the background wait to start")
    assert started[0].done(), started[0]
    started.clear()
    gc.collect()
    assert not [r.getMessage() for r in caplog.records if r.name == "asyncio"]
