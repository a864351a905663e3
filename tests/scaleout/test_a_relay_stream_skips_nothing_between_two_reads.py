"""A stream read from a session's event log (a :class:`RelayStream`) delivers every message
written after its first read, including one written while the stream is between two reads.

A reader attached without :meth:`RelayStream.prepare` (stdio's stream of unrelated messages with a
shared store) used to read "whatever comes next" (``XREAD $``) until its first message: each
quiet read ended, and a message written before the next read began was skipped. Here, on a real
redis-server, another store (another process) writes a message exactly then: after the reader's
first quiet read returned, before its second.
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


def test_a_message_written_between_two_reads_is_delivered(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(relay_streams, "BLOCK_MS", 100)  # quiet reads end quickly

    async def scenario() -> None:
        reader = open_shared(parse(redis_server.url), "gap", idle_seconds=300)
        writer = open_shared(parse(redis_server.url), "gap", idle_seconds=300)
        assert reader is not None
        assert writer is not None
        loop = asyncio.get_running_loop()
        reader.start(loop)
        writer.start(loop)
        reads = 0
        read = reader.read

        async def read_then_write_between(session_id: str, stream_id: str, after: str, block_ms: int) -> Any:
            nonlocal reads
            entries = await read(session_id, stream_id, after, block_ms)
            reads += 1
            if reads == 1:  # quiet; before the next read begins, another process writes
                assert entries == []
                message = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
                writer.append(session_id, stream_id, {"m": json.dumps(message), "f": "0", "o": "the-writer"})
                await writer.flush()
            return entries

        reader.read = read_then_write_between  # type: ignore[method-assign]
        got = asyncio.Event()
        delivered: list[dict[str, Any]] = []

        def sink(event_id: str | None, message: dict[str, Any]) -> None:
            delivered.append(message)
            got.set()

        stream = RelayStream("g", state=reader, session_key="the-session", resumable=False)
        stream.attach(sink)  # no prepare(): the stream starts at "whatever comes next"
        try:
            await asyncio.wait_for(got.wait(), 5)
        except asyncio.TimeoutError:
            pytest.fail(f"the message written between reads 1 and 2 never came ({reads} reads)")
        finally:
            stream.close()
            await reader.close()
            await writer.close()
        assert delivered == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]

    asyncio.run(scenario())
