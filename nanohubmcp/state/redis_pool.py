"""A process's connections to Redis: how each client is made, and the pool of its commands.

Every client has the same timeouts (:data:`CONNECT_TIMEOUT`, :data:`SOCKET_TIMEOUT`) and, unless told
otherwise, retries a command quickly on a fresh connection (:data:`RETRIES`): a connection Redis dropped
(it restarted) is replaced at once, so a store that is back answers the first request (:func:`connect`).

The pool of the commands: a request that finds every connection in use waits up to
:data:`POOL_WAIT_SECONDS` for one to be given back, then is refused "busy".

redis-py's default pool raises at once when it is full, so a burst of requests (a reconnect burst
after another process died) got 503 though each needs a connection for milliseconds. This is
redis-py's blocking pool, whose wait running out raises ``MaxConnectionsError`` (what the store's
guard answers as :class:`~nanohubmcp.state.errors.StateBusy`) instead of the ``ConnectionError``
it shares with a store that cannot be reached. Only getting a connection waits: a store that is
down fails when the connection is made, at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions as redis_errors

from .url import REDIS_ENCODING_ERRORS

CONNECT_TIMEOUT = 2.0
SOCKET_TIMEOUT = 15.0
"""Longest wait for one Redis reply (blocking reads wait less than this)."""
RETRIES = 2
"""Quick retries of a command on a fresh connection before the store counts as unreachable."""
POOL_WAIT_SECONDS = 2.0
"""Longest wait for a pooled connection when all are in use, before answering busy."""
POOL_SIZE = 100
"""Connections of the pool unless the state URL's ``max_connections`` says otherwise (redis-py's
default for its asyncio pool)."""


class WaitingPool(aioredis.BlockingConnectionPool):
    """redis-py's blocking pool; its wait running out raises ``MaxConnectionsError``."""

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().get_connection(*args, **kwargs)
        except redis_errors.ConnectionError as exc:
            # The pool's own wait ran out ("No connection available."); not a failed connect.
            if isinstance(exc.__cause__, asyncio.TimeoutError) and type(exc) is redis_errors.ConnectionError:
                raise redis_errors.MaxConnectionsError(str(exc)) from None
            raise


def waiting_pool(url: str, **options: Any) -> WaitingPool:
    """A :class:`WaitingPool` for ``url`` (its ``max_connections`` wins over :data:`POOL_SIZE`);
    ``options`` are redis-py's connection options."""
    return WaitingPool.from_url(url, max_connections=POOL_SIZE, timeout=POOL_WAIT_SECONDS, **options)


def connect(url: str, retries: int | None = None, *, single: bool = False, waits: bool = False) -> aioredis.Redis:
    """An asyncio client of ``url`` with a pool of its own (one connection with ``single``), retrying a
    command ``retries`` times (:data:`RETRIES` when None) on a fresh connection; ``waits``: a
    :func:`waiting_pool` (the pool of commands), where a request finding the pool full waits a moment
    for a connection instead of being refused at once."""
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff

    options: dict[str, Any] = {
        "retry": Retry(ExponentialBackoff(cap=0.2, base=0.02), RETRIES if retries is None else retries),
        "retry_on_error": [redis_errors.ConnectionError, redis_errors.TimeoutError],
        "decode_responses": True,
        "encoding_errors": REDIS_ENCODING_ERRORS,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "socket_timeout": SOCKET_TIMEOUT,
        "health_check_interval": 10,
    }
    if waits:
        return aioredis.Redis.from_pool(waiting_pool(url, **options))
    return aioredis.Redis.from_url(url, single_connection_client=single, **options)


def connect_sync(url: str) -> Any:
    """A synchronous client of ``url``, for the few calls made off the asyncio path (the stateless era)."""
    import redis

    return redis.Redis.from_url(url, encoding_errors=REDIS_ENCODING_ERRORS, socket_connect_timeout=CONNECT_TIMEOUT,
                                socket_timeout=SOCKET_TIMEOUT)
