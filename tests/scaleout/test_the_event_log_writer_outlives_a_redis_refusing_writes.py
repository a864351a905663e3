"""The Redis state's event log writer outlives every failed batch: entries Redis answers with an error reply that
would come again (``OOM`` under ``maxmemory-policy noeviction``, a replica's ``READONLY``) are dropped with one warning
naming how many and why, and later entries are written once Redis takes writes again; entries a frozen Redis could not
take are tried again (bounded backoff) and written once it answers; a queue past its bound is warned of once per burst,
not once per entry.

Before, a batch failing with anything but "Redis unreachable" ended the writer: every later entry of every session on
that process was never written, and a flush (a stop's) waited out its whole bound. And a full queue logged one warning
per entry dropped."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

import pytest
import redis
from redis_server import RedisServer, free_port

from nanohubmcp.state import open_shared
from nanohubmcp.state.redis_events import MAX_QUEUED
from nanohubmcp.state.redis_state import RedisState
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(90)

NAME = "refusing"
KEY = f"nanohubmcp:{NAME}:ev:the-session:s1"
FLUSH_SECONDS = 10.0
"""A flush longer than this: the writer is gone (its entries are never written)."""


def entry(n: int) -> dict[str, str]:
    return {"m": f'{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progress":{n}}}}}', "e": f"s1.{n}"}


def opened(url: str) -> RedisState:
    state = open_shared(parse(url), NAME, idle_seconds=60)
    assert isinstance(state, RedisState)
    return state


@contextlib.asynccontextmanager
async def started(url: str) -> AsyncIterator[RedisState]:
    """The Redis state at ``url`` (:func:`opened`), its writer started on this loop; closed on leaving (10 s at
    most)."""
    state = opened(url)
    state.start(asyncio.get_running_loop())
    try:
        yield state
    finally:
        await asyncio.wait_for(state.close(), 10)


def written(url: str) -> list[dict[str, str]]:
    with redis.Redis.from_url(url, decode_responses=True) as client:
        return [fields for _, fields in client.xrange(KEY)]


def refuse_oom(client: redis.Redis) -> Callable[[], None]:
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", "1")
    return lambda: client.config_set("maxmemory", "0")


def refuse_readonly(client: redis.Redis) -> Callable[[], None]:
    client.replicaof("127.0.0.1", str(free_port()))  # a master that is not there: a read-only replica
    return lambda: client.replicaof("NO", "ONE")


@pytest.mark.parametrize(
    ("refuse", "reply"), [(refuse_oom, "OutOfMemoryError: command not allowed"), (refuse_readonly, "ReadOnlyError")]
)
def test_entries_redis_refuses_are_dropped_and_later_ones_written(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture, refuse: Callable[[redis.Redis], Callable[[], None]],
    reply: str,
) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.state")

    async def scenario() -> None:
        async with started(redis_server.url) as state:
            state.append("the-session", "s1", entry(1))
            await asyncio.wait_for(state.events.flush(), FLUSH_SECONDS)
            with redis.Redis.from_url(redis_server.url, decode_responses=True) as admin:
                accept = refuse(admin)
                try:
                    state.append("the-session", "s1", entry(2))
                    state.append("the-session", "s1", entry(3))
                    await asyncio.wait_for(state.events.flush(), FLUSH_SECONDS)  # (before: for ever)
                finally:
                    accept()
            state.append("the-session", "s1", entry(4))
            await asyncio.wait_for(state.events.flush(), FLUSH_SECONDS)

    asyncio.run(scenario())
    assert written(redis_server.url) == [entry(1), entry(4)]
    refusals = [r.getMessage() for r in caplog.records if "refused by it" in r.getMessage()]
    assert len(refusals) == 2, refusals  # the burst's first, and its end
    assert "2 message(s) for the event logs refused by it" in refusals[0]
    assert reply in refusals[0]
    assert "written again; 0 more message(s)" in refusals[1]


def test_a_value_redis_py_will_not_send_is_dropped_and_later_entries_written(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.state")

    async def scenario() -> None:
        async with started(redis_server.url) as state:
            state.append("the-session", "s1", cast(Any, {"m": "{}", "x": None}))
            await asyncio.wait_for(state.events.flush(), FLUSH_SECONDS)
            state.append("the-session", "s1", entry(2))
            await asyncio.wait_for(state.events.flush(), FLUSH_SECONDS)

    asyncio.run(scenario())
    assert written(redis_server.url) == [entry(2)]
    assert "1 message(s) for the event logs refused by it and not tried again" in caplog.text
    assert "(DataError: Invalid input of type: 'NoneType'" in caplog.text


def test_entries_a_frozen_redis_could_not_take_are_written_once_it_answers(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.state")

    async def scenario() -> None:
        # (a frozen Redis fails a write within a second)
        async with started(redis_server.url + "?socket_timeout=0.3") as state:
            assert await state.last_id("the-session", "s1") == "0-0"  # connected
            redis_server.freeze()
            try:
                state.append("the-session", "s1", entry(1))
                deadline = time.monotonic() + 20
                while "unreachable" not in caplog.text:  # the writer's batch failed at least once
                    assert time.monotonic() < deadline, caplog.text
                    await asyncio.sleep(0.05)
                state.append("the-session", "s1", entry(2))
            finally:
                redis_server.thaw()
            await asyncio.wait_for(state.events.flush(), FLUSH_SECONDS)

    asyncio.run(scenario())
    # A write that timed out may have reached the frozen Redis, which runs it once thawed: it is written at least once.
    log = written(redis_server.url)
    assert [fields for n, fields in enumerate(log) if fields not in log[:n]] == [entry(1), entry(2)]
    assert "refused by it" not in caplog.text


def test_a_full_queue_is_warned_of_once_per_burst(redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.state")
    over = 50

    async def scenario() -> None:
        state = opened(redis_server.url)
        for n in range(MAX_QUEUED + over):  # nothing written yet: the writer has not started
            state.append("the-session", "s1", entry(n))
        overflows = [r.getMessage() for r in caplog.records if "the oldest of more than" in r.getMessage()]
        assert len(overflows) == 1, overflows[:3]  # (before: one per entry dropped)
        assert f"1 message(s) for the event logs dropped, the oldest of more than {MAX_QUEUED}" in overflows[0]
        state.start(asyncio.get_running_loop())
        try:
            await asyncio.wait_for(state.events.flush(), 30)
        finally:
            await asyncio.wait_for(state.close(), 10)

    asyncio.run(scenario())
    overflows = [r.getMessage() for r in caplog.records if "the oldest of more than" in r.getMessage()]
    assert len(overflows) == 2, overflows[:3]
    assert f"written again; {over - 1} more message(s) dropped" in overflows[1]
    with redis.Redis.from_url(redis_server.url, decode_responses=True) as client:
        first = client.xrange(KEY, count=1)
    # (The log keeps its newest ~256; the newest entry is the last appended.)
    assert written(redis_server.url)[-1] == entry(MAX_QUEUED + over - 1)
    assert first
