"""Streams' event logs in Redis: one Redis stream per log, ``ev:<session>:<stream>``, of at most
~:data:`EVENT_KEEP` entries, expiring with the session (a finished POST response stream sooner,
:data:`FINISHED_KEEP`).

Writes are queued and pipelined in order by one task per process, so messages of one process
reach the log in the order they were sent; while Redis is away they wait (at most
:data:`MAX_QUEUED`; past it the oldest are dropped, with a warning) and are written once it is
back. Reads (a client's stream, a resume) go to Redis directly. What this module does not own:
the connection and its outage handling (:class:`~nanohubmcp.state.redis_state.RedisState`, whose
guard every command here goes through).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from .base import Fields
from .errors import StateUnavailable

log = logging.getLogger("nanohubmcp.state")

EVENT_KEEP = 256
"""Entries kept per stream log (approximately: Redis trims whole nodes)."""
FINISHED_KEEP = 300
"""Seconds the log of a POST response stream is kept after its response (for a late resume)."""
MAX_QUEUED = 10_000
"""Entries waiting for Redis at most; past it the oldest are dropped, with a warning."""
BATCH = 256
"""Entries written per pipeline, and read per ``XREAD``."""
RETRY_SECONDS = 0.5
"""Pause before queued entries are tried again while Redis is away."""

Guard = Callable[[], contextlib.AbstractAsyncContextManager[Any]]


class RedisEventLogs:
    """The event logs of :class:`~nanohubmcp.state.redis_state.RedisState` (module docstring).

    Args:
        guard: the store's client as an async context manager (connection errors become
            :class:`~nanohubmcp.state.errors.StateUnavailable`).
        key: builds a namespaced key from its parts.
        ttl: seconds a log lives after its last write.
        shown: the store's URL without its password, for messages.
    """

    def __init__(self, guard: Guard, key: Callable[..., str], ttl: int, shown: str) -> None:
        self._guard = guard
        self._key = key
        self.ttl = ttl
        self.shown = shown
        self._queue: deque[tuple[str, Fields]] = deque()
        self._wake: asyncio.Event | None = None
        self._written: asyncio.Event | None = None

    def key(self, session_id: str, stream_id: str) -> str:
        """The Redis key of a stream's log."""
        return self._key("ev", session_id, stream_id)

    def append(self, session_id: str, stream_id: str, fields: Fields) -> None:
        """Queue an entry for a stream's log (written in the order queued; never raises)."""
        if len(self._queue) >= MAX_QUEUED:
            self._queue.popleft()
            log.warning(
                "shared state store %s: more than %d messages wait for it; dropping the oldest", self.shown, MAX_QUEUED
            )
        self._queue.append((self.key(session_id, stream_id), fields))
        if self._wake is not None:
            self._wake.set()

    async def flush(self) -> None:
        """Return once every entry queued so far is written."""
        while self._queue and self._written is not None:
            await self._written.wait()

    def start(self, loop: asyncio.AbstractEventLoop) -> asyncio.Task[None]:
        """Start the process's one writer task on ``loop`` (the caller cancels it to stop)."""
        self._wake = asyncio.Event()
        self._written = asyncio.Event()
        if self._queue:
            self._wake.set()
        return loop.create_task(self._write())

    async def _write(self) -> None:
        """Write the queued entries, in order, for ever."""
        assert self._wake is not None
        assert self._written is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                batch = [self._queue.popleft() for _ in range(min(BATCH, len(self._queue)))]
                try:
                    async with self._guard() as client:
                        pipe = client.pipeline(transaction=False)
                        for key, fields in batch:
                            pipe.xadd(key, fields, maxlen=EVENT_KEEP, approximate=True)
                            # A finished response stream is kept only for a client resuming soon after.
                            pipe.expire(key, min(self.ttl, FINISHED_KEEP) if fields.get("f") == "1" else self.ttl)
                        await pipe.execute()
                except StateUnavailable:
                    self._queue.extendleft(reversed(batch))
                    await asyncio.sleep(RETRY_SECONDS)
            self._written.set()
            self._written = asyncio.Event()

    async def read(self, session_id: str, stream_id: str, after: str, block_ms: int) -> list[tuple[str, Fields]]:
        """Entries after the entry id ``after`` (``"0-0"``: all), waiting up to ``block_ms``."""
        key = self.key(session_id, stream_id)
        async with self._guard() as client:
            found = await client.xread({key: after}, count=BATCH, block=block_ms or None)
        if not found:
            return []
        entries = found.get(key, []) if isinstance(found, dict) else found[0][1]
        if entries and isinstance(entries[0], list) and len(entries) == 1 and isinstance(entries[0][0], list):
            entries = entries[0]  # RESP3 shape: {key: [[entries]]}
        return [(str(entry_id), dict(fields)) for entry_id, fields in entries]

    async def last_id(self, session_id: str, stream_id: str) -> str:
        """The newest entry id of a stream's log (``"0-0"`` when empty)."""
        async with self._guard() as client:
            last = await client.xrevrange(self.key(session_id, stream_id), count=1)
        return str(last[0][0]) if last else "0-0"
