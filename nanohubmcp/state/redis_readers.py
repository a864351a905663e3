"""Who reads a session's unrelated-message stream now: ``rd:<session>`` in Redis.

A message related to a request that has no stream of its own (a task's progress, its question to
the client) can still reach the client on the session's GET stream (or legacy SSE stream),
whichever process holds it. The process producing it must know, before it writes to the stream's
log, that some process reads it: else a question would wait for an answer that cannot come.

``rd:<session>`` is a set with one member per open reader, ``<process> <reader>``: added when a
reader starts, removed when it ends, the key dropped with the session and expiring with its idle
clock. A process that dies leaves its members behind; they count no more once its heartbeat
(``proc:<process>``) expires, and the next look removes them. So the set holds at most one member
per reader of the live processes, plus the stale ones until they are looked at. What this module
does not own: the connection (:class:`~nanohubmcp.state.redis_state.RedisState`, whose guard every
command here goes through), the logs (:mod:`.redis_events`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from .errors import spawn_cleanup

Guard = Callable[[], contextlib.AbstractAsyncContextManager[Any]]


class StreamReaders:
    """The readers of every session's unrelated-message stream (module docstring).

    Args:
        guard: the store's client as an async context manager.
        key: builds a namespaced key from its parts.
        process: this process's id (its heartbeat is ``key("proc", process)``).
        ttl: seconds the set lives after its last refresh (the session's idle time).
    """

    def __init__(self, guard: Guard, key: Callable[..., str], process: str, ttl: int) -> None:
        self._guard = guard
        self._key = key
        self._process = process
        self._ttl = ttl
        self._tasks: set[asyncio.Task[None]] = set()

    def key(self, session_id: str) -> str:
        """The Redis key of the readers of ``session_id``'s stream."""
        return self._key("rd", session_id)

    async def started(self, session_id: str, reader: str) -> None:
        """Note the reader ``reader`` (unique in this process) of ``session_id``'s stream.

        Raises:
            StateUnavailable: the store cannot be reached.
        """
        member = f"{self._process} {reader}"
        async with self._guard() as client:
            pipe = client.pipeline(transaction=False)
            pipe.sadd(self.key(session_id), member)
            pipe.expire(self.key(session_id), self._ttl)
            await pipe.execute()

    def ended(self, session_id: str, reader: str) -> None:
        """The reader ``reader`` stopped (its removal is queued: a reader ends while cancelled)."""
        member = f"{self._process} {reader}"

        async def remove() -> None:
            async with self._guard() as client:
                await client.srem(self.key(session_id), member)

        try:
            asyncio.get_running_loop()
        except RuntimeError:  # the loop is gone (a reader closed at exit): its members die with the heartbeat
            return
        spawn_cleanup(self._tasks, remove)  # a full pool delays it, never drops it

    async def any(self, session_id: str) -> bool:
        """Whether a live process reads ``session_id``'s stream now (members of dead processes are removed).

        Raises:
            StateUnavailable: the store cannot be reached.
        """
        async with self._guard() as client:
            members = [str(m) for m in await client.smembers(self.key(session_id))]
            processes = sorted({m.split(" ", 1)[0] for m in members})
            if not processes:
                return False
            if self._process in processes:
                return True
            pipe = client.pipeline(transaction=False)
            for process in processes:
                pipe.exists(self._key("proc", process))
            alive = dict(zip(processes, await pipe.execute(), strict=True))
            dead = [m for m in members if not alive[m.split(" ", 1)[0]]]
            if dead:
                await client.srem(self.key(session_id), *dead)
        return any(alive.values())
