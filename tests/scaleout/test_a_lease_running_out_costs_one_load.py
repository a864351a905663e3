"""When a process's copy of a session record runs out of lease while many connections of the
session are busy, the requests arriving together ask Redis once (one ``GET``), not once each;
a request that arrives after an invalidation does not take a record sent for before it.

Two stores on one real redis-server stand for two processes: the first writes the record, the
second has no copy of it yet.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import redis
from redis_server import RedisServer

from nanohubmcp.state import open_shared
from nanohubmcp.state.base import SharedState
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(60)

RECORD = {"key": "the-session", "version": "2025-06-18", "transport": "streamable-http", "principal": None,
          "capabilities": {}, "client": {}, "initialized": True, "log_level": None, "subscriptions": []}


def get_calls(url: str) -> int:
    stats = redis.Redis.from_url(url).info("commandstats")
    return int(stats.get("cmdstat_get", {}).get("calls", 0))


@asynccontextmanager
async def store(url: str) -> AsyncIterator[SharedState]:
    state = open_shared(parse(url), "flight", idle_seconds=300)
    assert state is not None
    state.start(asyncio.get_running_loop())
    try:
        for _ in range(500):  # its channel subscribed: only then does it keep copies
            if state.sessions.listening:  # type: ignore[attr-defined]
                break
            await asyncio.sleep(0.01)
        assert state.sessions.listening  # type: ignore[attr-defined]
        yield state
    finally:
        await state.close()


def test_requests_arriving_together_ask_redis_once(redis_server: RedisServer) -> None:
    async def scenario() -> None:
        async with store(redis_server.url) as writer, store(redis_server.url) as reader:
            await writer.save_session(dict(RECORD), set(), set())
            before = get_calls(redis_server.url)
            records = await asyncio.gather(*(reader.load_session("the-session") for _ in range(16)))
            assert all(r == RECORD for r in records)
            assert get_calls(redis_server.url) - before == 1
            assert reader.held_session("the-session") == RECORD  # kept: the next requests ask nobody

    asyncio.run(scenario())


def test_a_request_after_an_invalidation_loads_anew(redis_server: RedisServer) -> None:
    async def scenario() -> None:
        async with store(redis_server.url) as writer, store(redis_server.url) as reader:
            await writer.save_session(dict(RECORD), set(), set())
            before = get_calls(redis_server.url)
            first = asyncio.ensure_future(reader.load_session("the-session"))
            await asyncio.sleep(0)  # the first load is on its way
            # An invalidation reaches the reader meanwhile (as from a writer's publish).
            reader.sessions.deliver({"i": "the-session", "w": writer.process, "n": "x"})  # type: ignore[attr-defined]
            second = await reader.load_session("the-session")
            assert await first == RECORD
            assert second == RECORD
            assert get_calls(redis_server.url) - before == 2
            assert reader.held_session("the-session") == RECORD  # the second load's copy is kept

    asyncio.run(scenario())


def test_a_load_whose_request_went_away_leaves_the_others_served(redis_server: RedisServer) -> None:
    async def scenario() -> None:
        async with store(redis_server.url) as writer, store(redis_server.url) as reader:
            await writer.save_session(dict(RECORD), set(), set())
            redis.Redis.from_url(redis_server.url).execute_command("CLIENT", "PAUSE", "300", "ALL")  # loads wait
            first = asyncio.ensure_future(reader.load_session("the-session"))
            await asyncio.sleep(0)  # one turn: its load is registered and sent, then held by the pause
            assert "the-session" in reader.sessions._loading  # type: ignore[attr-defined]
            joined = asyncio.ensure_future(reader.load_session("the-session"))
            await asyncio.sleep(0)  # one turn: it finds the first's load on its way and waits for its record
            assert not first.done()
            assert not joined.done()
            first.cancel()  # the client of the request that sent the load disconnected
            assert await joined == RECORD
            with contextlib.suppress(asyncio.CancelledError):
                await first

    asyncio.run(scenario())
