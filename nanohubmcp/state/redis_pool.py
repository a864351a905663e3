"""The connection pool of a process's Redis commands: a request that finds every connection in use
waits up to :data:`POOL_WAIT_SECONDS` for one to be given back, then is refused "busy".

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
