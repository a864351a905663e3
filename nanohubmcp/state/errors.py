"""The errors of the shared state store: it cannot be reached right now, or this process has no
free connection to it (busy)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import ServerBusy

RETRY_AFTER_SECONDS = 5
"""``Retry-After`` while the state store is unreachable."""
BUSY_RETRY_SECONDS = 1
"""``Retry-After`` while every connection of this process to the store is in use."""
CLEANUP_PAUSE_SECONDS = 0.05
"""Pause before a clean-up refused "busy" asks the pool for a connection again."""


class StateUnavailable(ServerBusy):
    """The shared state store (Redis) is unreachable: HTTP 503 with ``Retry-After``, never a 500.

    Nothing is lost: a session, stream or pending request kept there is served again as soon
    as the store answers (a store restarted without persistence has forgotten its sessions:
    their clients then get 404 and initialize again).
    """

    def __init__(
        self, message: str | None = None, *, retry_after: int = RETRY_AFTER_SECONDS, request_id: str | int | None = None
    ) -> None:
        super().__init__(
            message or "The server's shared state store is unreachable; retry shortly",
            retry_after=retry_after,
            request_id=request_id,
        )

    def naming(self, request_id: str | int | None) -> StateUnavailable:
        """The same refusal (message, ``Retry-After``) naming the request it refuses."""
        return StateUnavailable(self.message, retry_after=self.retry_after, request_id=request_id)


class StateBusy(StateUnavailable):
    """Every connection this process may open to the shared state store is in use (the
    ``max_connections`` of the state URL's pool): HTTP 503 with ``Retry-After``, saying the server
    is busy. The store itself is up: nothing is marked down, and the next request that finds a
    free connection is served.
    """

    def __init__(self, *, request_id: str | int | None = None) -> None:
        super().__init__(
            "The server is busy: all its connections to the shared state store are in use; retry shortly",
            retry_after=BUSY_RETRY_SECONDS,
            request_id=request_id,
        )

    def naming(self, request_id: str | int | None) -> StateBusy:
        return StateBusy(request_id=request_id)


def spawn_tolerant(tasks: set[asyncio.Task[Any]], work: Awaitable[object]) -> None:
    """Run ``work`` in the background on the running loop, ignoring :class:`StateUnavailable`
    (the shared store being down is answered elsewhere); ``tasks`` holds it until it ends."""

    async def run() -> None:
        with contextlib.suppress(StateUnavailable):
            await work

    task = asyncio.get_running_loop().create_task(run())
    tasks.add(task)
    task.add_done_callback(tasks.discard)


def spawn_cleanup(tasks: set[asyncio.Task[Any]], work: Callable[[], Awaitable[object]]) -> None:
    """Run the clean-up ``work()`` (a delete nobody waits for) in the background until it is done.

    A request refused :class:`StateBusy` is answered 503 and its client retries; a clean-up has no
    client to retry it, and dropped it would leave its keys until they expire (a session record: its
    idle time, an hour by default, counted against its principal's share). So a busy pool makes it
    wait for a connection again (``work()`` is called once per try, so it must be safe to repeat), as
    long as the loop runs; an unreachable store (:class:`StateUnavailable`) ends it, as for
    :func:`spawn_tolerant` (its keys expire). ``tasks`` holds it until it ends.
    """

    async def run() -> None:
        while True:
            try:
                await work()
                return
            except StateBusy:
                await asyncio.sleep(CLEANUP_PAUSE_SECONDS)
            except StateUnavailable:
                return

    task = asyncio.get_running_loop().create_task(run())
    tasks.add(task)
    task.add_done_callback(tasks.discard)
