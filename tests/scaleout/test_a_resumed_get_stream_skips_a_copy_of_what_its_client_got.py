"""A session's stream of unrelated messages (GET ``/mcp``) resumed after a reconnect delivers each entry once, even
when the writer's retry put a copy of an entry the client already got after the position it resumes from.

The writer of the event logs (``nanohubmcp.state.redis_events``) sends a batch; Redis, frozen, times it out; the
writer puts the batch back and tries it again after a pause; Redis, thawed, runs the first send, so the entry is in
the log twice. The client's reader delivered the first copy, the client reconnected (``Last-Event-ID``: the first
copy's position), and the second copy came after that position. Before, the resumed reader knew nothing of what
was delivered before the reconnect (``server/wire/delivered.py`` started empty) and sent the copy again; a reader
going on without a ``Last-Event-ID`` on the same process did too. Now a resumed reader learns, from the log up to
the resume position, the highest number of each writing process there (the client got those), and a reader going
on keeps its last one's record.

Real parts: one redis-server, frozen with SIGSTOP; two shared stores as two processes hold them (the writer's with
a 0.3 s socket timeout, so a frozen Redis fails its batch, and a 1 s pause before its retry, so the client's
reconnect comes between the first write and the retry: it comes about 0.02 s after the thaw, and the test checks
that the retry had not written yet); the relay stream a GET is served by. And over HTTP, two
``nanohubmcp run`` processes: a GET resumed on the other process, the copy in the log as the retry leaves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import wire
from cluster import Server
from redis_server import RedisServer, free_port

from nanohubmcp.server.wire.relay_streams import RelayStream
from nanohubmcp.state import open_shared
from nanohubmcp.state.base import NUMBER, session_key
from nanohubmcp.state.redis_state import RedisState
from nanohubmcp.state.redis_write_trouble import Backoff
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(90)

NAME = "resumedcopy"
SESSION = "the-session"
KEY = f"nanohubmcp:{NAME}:ev:{SESSION}:g"
RETRY_PAUSE = 1.0
"""Seconds the writer waits before trying its failed batch again (its first pause is 0.1 s by default)."""
WAIT = 20.0


def note(n: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": n}}


def opened(url: str) -> RedisState:
    state = open_shared(parse(url), NAME, idle_seconds=300)
    assert isinstance(state, RedisState)
    return state


async def until(condition: Any, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for: {what}"
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("reconnect", ["resumed-elsewhere", "resumed-here", "reattached-here"])
def test_a_copy_the_writers_retry_put_after_the_resume_position_is_skipped(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture, reconnect: str
) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.state")

    async def scenario() -> tuple[list[tuple[str | None, Any]], list[tuple[str | None, Any]], list[dict[str, str]]]:
        reader = opened(redis_server.url)
        writer = opened(redis_server.url + "?socket_timeout=0.3")
        writer.events._backoff = Backoff(first=RETRY_PAUSE, most=RETRY_PAUSE)
        loop = asyncio.get_running_loop()
        reader.start(loop)
        writer.start(loop)
        before: list[tuple[str | None, Any]] = []
        after: list[tuple[str | None, Any]] = []
        stream = RelayStream("g", state=reader, session_key=SESSION, resumable=True)
        again = stream
        try:
            await stream.prepare()
            stream.attach(lambda event_id, message: before.append((event_id, message)))
            assert await writer.last_id(SESSION, "g") == "0-0"  # (the writer holds a connection)
            redis_server.freeze()
            try:
                writer.append(SESSION, "g", {"m": json.dumps(note(1)), "f": "0", "o": writer.process})
                await until(lambda: "unreachable" in caplog.text, "the writer's batch timed out")
            finally:
                redis_server.thaw()  # Redis runs the batch it was sent; the writer tries it again 1 s later
            await until(lambda: before, "the first connection got the message")
            last_event_id = before[-1][0]
            assert last_event_id is not None
            stream.detach()  # the client's connection dropped
            with redis.Redis.from_url(redis_server.url, decode_responses=True) as client:
                assert client.xlen(KEY) == 1, "the writer's retry came before the reconnect: RETRY_PAUSE is too short"
            await asyncio.wait_for(writer.flush(), WAIT)  # the retry: the message again, after the resume position
            writer.append(SESSION, "g", {"m": json.dumps(note(2)), "f": "0", "o": writer.process})
            await asyncio.wait_for(writer.flush(), WAIT)
            sink = lambda event_id, message: after.append((event_id, message))  # noqa: E731
            if reconnect == "resumed-elsewhere":  # another process serves the resuming GET
                again = RelayStream("g", state=reader, session_key=SESSION, resumable=True)
                again.attach(sink, last_event_id)
            elif reconnect == "resumed-here":
                stream.attach(sink, last_event_id)
            else:  # a GET without Last-Event-ID on the same process goes on from where the last one read
                stream.attach(sink)
            await until(lambda: any(message == note(2) for _, message in after), "the second message")
        finally:
            stream.close()
            again.close()
            await reader.close()
            await writer.close()
        with redis.Redis.from_url(redis_server.url, decode_responses=True) as client:
            log = [fields for _, fields in client.xrange(KEY)]
        return before, after, log

    before, after, log = asyncio.run(scenario())
    assert [message for _, message in before] == [note(1)]
    # The retry really wrote the first message again, after the position the client resumed from.
    copies = [fields for fields in log if fields[NUMBER] == "1"]
    assert len(copies) >= 2, log
    assert [message for _, message in after] == [note(2)], f"each message once across the reconnect: {after}"


@contextlib.contextmanager
def two_servers(redis_server: RedisServer, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    env = {**os.environ, "MCP_TOKEN": "", "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}
    env.pop("NANOHUBMCP_STATE_URL", None)
    servers = [Server(tmp_path, free_port(), redis_server.url, env=env) for _ in range(2)]
    try:
        for server in servers:
            server.wait_listening()
        yield servers[0], servers[1]
    finally:
        for server in servers:
            server.stop()


def test_a_get_resumed_on_another_process_skips_the_copy_after_its_position(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    with two_servers(redis_server, tmp_path) as (holder, other):
        session = wire.initialize(holder.url)
        assert wire.call(holder.url, session, "resources/subscribe", {"uri": "note://current"}).status_code == 200
        stream = wire.open_get(holder.url, session)
        assert stream.status == 200
        wire.tool(other.url, session, "touch_note", {"text": "one"})
        got, message = stream.next()
        assert message["method"] == "notifications/resources/updated"
        assert got is not None
        stream.close()  # the client's connection dropped

        # The log as the writer's retry leaves it: the entry the client got, again, after it (same fields).
        key = f"nanohubmcp:scaleout-test:ev:{session_key(session)}:g"
        with redis.Redis.from_url(redis_server.url, decode_responses=True) as client:
            fields = dict(client.xrange(key, got[2:], got[2:])[0][1])
            assert fields[NUMBER]
            copy = client.xadd(key, fields)

        resumed = wire.open_get(other.url, session, last_event_id=got)
        try:
            assert resumed.status == 200
            wire.tool(holder.url, session, "touch_note", {"text": "two"})
            event_id, message = resumed.next()
            assert message["method"] == "notifications/resources/updated"
            assert event_id != f"g.{copy}", "the copy of the message the client got before its reconnect, again"
            with redis.Redis.from_url(redis_server.url, decode_responses=True) as client:
                assert event_id == f"g.{client.xrevrange(key, count=1)[0][0]}"  # the second change's
        finally:
            resumed.close()
        for server in (holder, other):
            assert "Traceback" not in server.text(), server.report()
