"""The stateless era's used-nonce check runs on a synchronous Redis client of its own; when every
connection of its pool is in use (a state URL's ``max_connections``), redis-py raises
``MaxConnectionsError``, which the check took for Redis being unreachable: 503 "unreachable" and
the store marked down (an outage logged) with Redis up. Now it is "busy", as on the asyncio path
(test_a_full_redis_pool_is_busy_not_down.py). A real redis-server; the pool's one connection held."""

from __future__ import annotations

import logging
import time

import pytest
from redis_server import RedisServer

from nanohubmcp.state import open_shared
from nanohubmcp.state.errors import StateBusy
from nanohubmcp.state.redis_state import RedisState
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(60)


def test_a_full_pool_is_busy_and_the_store_stays_up(redis_server: RedisServer,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp.state")
    state = open_shared(parse(redis_server.url + "?max_connections=1"), "nonces", idle_seconds=60)
    assert isinstance(state, RedisState)
    nonces = state.request_state
    assert nonces.consume_nonce("first", time.time() + 60) is True
    assert nonces.consume_nonce("first", time.time() + 60) is False  # used once only
    pool = nonces._sync().connection_pool
    held = pool.get_connection()  # the pool's only connection, in use elsewhere
    try:
        with pytest.raises(StateBusy):
            nonces.consume_nonce("second", time.time() + 60)
        assert not state.down
    finally:
        pool.release(held)
    assert nonces.consume_nonce("second", time.time() + 60) is True
    assert "unreachable" not in caplog.text
    nonces.close()
