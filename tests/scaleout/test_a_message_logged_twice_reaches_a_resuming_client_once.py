"""A POST stream's Redis event log may hold an entry twice: a write that timed out against a frozen Redis had
reached it, and the writer's retry wrote it again (``nanohubmcp.state.redis_events``). A client resuming that
stream (``Last-Event-ID``) on another process, whose reader reads the log, receives each message once.

Before, the reader skipped only entries at or below the client's ``Last-Event-ID``: a copy of a message it had
already delivered on this connection went to the client again (a progress notification twice, the result twice).
Here two real server processes share a real redis-server; a call runs on one, its log's entries are written again
into Redis as the retried batch writes them (same fields, new entry ids), and the client resumes on the other.
The same for a session's stream of unrelated messages (GET ``/mcp``), which every process writes: its reader
delivered a copy too.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
import redis
import wire
from app_processes import app_processes
from redis_server import RedisServer

from nanohubmcp.server.wire.relay_streams import RelayStream
from nanohubmcp.state import open_shared
from nanohubmcp.state.base import session_key
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(90)

NAME = "twicelogged"
APP = f'''
from nanohubmcp import Context, MCPServer

server = MCPServer("{NAME}")


@server.tool()
def steps(ctx: Context) -> str:
    """Report three steps, then answer."""
    for step in range(3):
        ctx.report_progress(step, 3, f"step {{step}}")
    return "done"
'''


def read_all(events: wire.Events) -> list[tuple[str | None, Any]]:
    got: list[tuple[str | None, Any]] = []
    while True:
        event_id, message = events.next(timeout=20)
        if message is None:
            return got
        got.append((event_id, message))


def test_each_message_of_a_twice_logged_stream_reaches_a_resuming_client_once(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    app = tmp_path / "twice_logged_app.py"
    app.write_text(APP)
    with app_processes(app, redis_server.url, tmp_path) as servers:
        url, other_url = (server.url for server in servers)
        session = wire.initialize(url)
        call = wire.Events("POST", url, wire.headers(session), {
            "jsonrpc": "2.0", "id": 8, "method": "tools/call",
            "params": {"name": "steps", "arguments": {}, "_meta": {"progressToken": "p"}},
        })
        sent = read_all(call)
        call.close()
        assert [message.get("method") for _, message in sent] == ["notifications/progress"] * 3 + [None], sent
        assert sent[-1][1]["result"]["content"][0]["text"] == "done", sent
        stream = str(sent[0][0]).split(".")[0]
        key = f"nanohubmcp:{NAME}:ev:{session_key(session)}:{stream}"

        # The log as a retried batch leaves it: a batch of the first two messages timed out against a frozen Redis
        # that ran it when it resumed, the writer wrote it again (the same fields, new entry ids), then the rest.
        with redis.Redis.from_url(redis_server.url, decode_responses=True) as client:
            deadline = time.monotonic() + 10
            while len(client.xrange(key)) < len(sent) and time.monotonic() < deadline:
                time.sleep(0.05)
            logged = [fields for _, fields in client.xrange(key)]
            assert [fields["e"] for fields in logged] == [event_id for event_id, _ in sent]
            client.delete(key)
            for fields in logged[:2] + logged[:2] + logged[2:]:
                client.xadd(key, fields)
            assert len(client.xrange(key)) == len(sent) + 2

        # A client that lost the stream after the first progress event resumes it on the other process.
        resumed = wire.open_get(other_url, session, last_event_id=sent[0][0])
        try:
            assert resumed.status == 200
            again = read_all(resumed)
        finally:
            resumed.close()
        assert again == sent[1:], f"each message once, after the resume point: {again}"

        # And one resuming from before the first message gets every one, once.
        whole = wire.open_get(other_url, session, last_event_id=f"{stream}.0")
        try:
            assert whole.status == 200
            assert read_all(whole) == sent
        finally:
            whole.close()


def test_each_message_of_a_twice_logged_get_stream_reaches_its_reader_once(redis_server: RedisServer) -> None:
    def note(n: int) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": n}}

    async def scenario() -> list[tuple[str | None, Any]]:
        reader = open_shared(parse(redis_server.url), NAME, idle_seconds=300)
        writer = open_shared(parse(redis_server.url), NAME, idle_seconds=300)
        assert reader is not None
        assert writer is not None
        loop = asyncio.get_running_loop()
        reader.start(loop)
        writer.start(loop)
        delivered: list[tuple[str | None, Any]] = []
        stream = RelayStream("g", state=reader, session_key="the-session", resumable=True)
        try:
            await stream.prepare()
            stream.attach(lambda event_id, message: delivered.append((event_id, message)))
            for n in (1, 2, 3):  # another process's messages (a batch), as the writer logs them
                writer.append("the-session", "g", {"m": json.dumps(note(n)), "f": "0", "o": "the-writer"})
            await writer.flush()
            key = f"nanohubmcp:{NAME}:ev:the-session:g"
            with redis.Redis.from_url(redis_server.url, decode_responses=True) as client:
                for _, fields in client.xrange(key):  # the batch that timed out had reached Redis: written again
                    client.xadd(key, fields)
            writer.append("the-session", "g", {"m": json.dumps(note(4)), "f": "0", "o": "the-writer"})
            await writer.flush()
            deadline = loop.time() + 10
            while all(message != note(4) for _, message in delivered) and loop.time() < deadline:
                await asyncio.sleep(0.05)  # (the copies are before the fourth in the log: read by then)
        finally:
            stream.close()
            await reader.close()
            await writer.close()
        return delivered

    delivered = asyncio.run(scenario())
    assert [message for _, message in delivered] == [note(n) for n in (1, 2, 3, 4)], delivered
