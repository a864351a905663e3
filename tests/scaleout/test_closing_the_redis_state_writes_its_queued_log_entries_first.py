"""Closing the Redis state writes the entries queued for the event logs before it stops its writer (a stopping
server's last answers), and a Redis that does not answer holds the close no longer than its bound, which says how
many entries were left.

Before, closing cancelled the writer at once: an entry appended just before (an answer written as the stop's drain
ended) was never written, and a client resuming the stream on another process never got it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import pytest
import redis
from redis_server import RedisServer

from nanohubmcp.state import open_shared
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(60)

ENTRY = {"m": '{"jsonrpc":"2.0","id":1,"result":{}}', "f": "1", "e": "s1.1", "o": "test", "r": "1"}
KEY = "nanohubmcp:closing:ev:the-session:s1"


def test_an_entry_queued_just_before_the_close_is_written(redis_server: RedisServer) -> None:
    async def scenario() -> None:
        state = open_shared(parse(redis_server.url), "closing", idle_seconds=60)
        assert state is not None
        state.start(asyncio.get_running_loop())
        state.append("the-session", "s1", dict(ENTRY))
        await asyncio.wait_for(state.close(), 10)

    asyncio.run(scenario())
    with redis.Redis.from_url(redis_server.url, decode_responses=True) as client:
        assert [fields for _, fields in client.xrange(KEY)] == [ENTRY]


def test_a_redis_that_does_not_answer_holds_the_flush_no_longer_than_its_bound(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.state")
    took: list[float] = []

    async def scenario() -> None:
        state = open_shared(parse(redis_server.url), "closing", idle_seconds=60)
        assert state is not None
        state.start(asyncio.get_running_loop())
        assert await state.last_id("the-session", "s1") == "0-0"  # connected
        redis_server.freeze()
        state.append("the-session", "s1", dict(ENTRY))
        began = time.monotonic()
        # (Its last steps, the heartbeat's delete, wait on the frozen Redis: the runner bounds the whole.)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(state.close(flush=0.3), 2)
        took.append(time.monotonic() - began)

    try:
        asyncio.run(scenario())
    finally:
        redis_server.thaw()
    assert took[0] < 3
    assert "1 message(s) for the event logs not written within 0.3 s of closing" in caplog.text
