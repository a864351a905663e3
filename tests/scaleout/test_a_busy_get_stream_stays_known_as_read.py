"""A session's stream of unrelated messages that is never quiet stays known as read.

While a process reads a session's GET stream, ``rd:<session>`` in Redis says so, and expires with
the session's idle time unless the reader refreshes it. The refresh used to come only after a few
reads that returned nothing: a stream that received a message more often than a read waits never
refreshed it, so after the idle time every other process believed nobody read the stream (and a
task's question, on any process, was refused as undeliverable) while the client was reading it.
Here, on a real redis-server, another store (another process) writes to the stream every 50 ms for
longer than the idle time; the reader must still be known.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from redis_server import RedisServer

from nanohubmcp.server.wire import relay_streams
from nanohubmcp.server.wire.relay_streams import RelayStream
from nanohubmcp.state import open_shared
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(60)

IDLE_SECONDS = 2
RECORD = {"key": "busy", "version": "2025-06-18", "transport": "streamable-http", "principal": None,
          "capabilities": {}, "client": {}, "initialized": True, "log_level": None, "subscriptions": []}


def test_a_stream_busier_than_a_read_keeps_its_reader_known(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(relay_streams, "BLOCK_MS", 100)  # a check of the session every 0.3 s of reading

    async def scenario() -> None:
        reader = open_shared(parse(redis_server.url), "busy", idle_seconds=IDLE_SECONDS)
        writer = open_shared(parse(redis_server.url), "busy", idle_seconds=IDLE_SECONDS)
        assert reader is not None
        assert writer is not None
        loop = asyncio.get_running_loop()
        reader.start(loop)
        writer.start(loop)
        await writer.save_session(dict(RECORD), set(), set())
        delivered: list[dict[str, Any]] = []
        stream = RelayStream("g", state=reader, session_key="busy", resumable=True)
        stream.attach(lambda event_id, message: delivered.append(message))
        try:
            started = loop.time()
            while not await writer.has_reader("busy"):
                assert loop.time() - started < 10, "the reader never told the store it reads"
                await asyncio.sleep(0.02)
            message = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "tick"}}
            ends = loop.time() + 2 * IDLE_SECONDS + 0.5
            sent = 0
            while loop.time() < ends:  # never quiet for a read's wait (100 ms)
                writer.append("busy", "g", {"m": json.dumps(message), "f": "0", "o": "the-writer"})
                await writer.flush()
                sent += 1
                await asyncio.sleep(0.05)
            assert delivered, "the reader read nothing: the scenario did not run"
            assert not stream.closed, "the stream was ended though its session lives"
            assert await writer.has_reader("busy"), (
                f"after {sent} messages over {2 * IDLE_SECONDS + 0.5} s (idle time {IDLE_SECONDS} s), "
                "Redis no longer knows the stream is read"
            )
        finally:
            stream.close()
            await reader.close()
            await writer.close()

    asyncio.run(scenario())
