"""The one error of the shared state store: it cannot be reached right now."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any

from ..errors import ServerBusy

RETRY_AFTER_SECONDS = 5
"""``Retry-After`` while the state store is unreachable."""


class StateUnavailable(ServerBusy):
    """The shared state store (Redis) is unreachable: HTTP 503 with ``Retry-After``, never a 500.

    Nothing is lost: a session, stream or pending request kept there is served again as soon
    as the store answers (a store restarted without persistence has forgotten its sessions:
    their clients then get 404 and initialize again).
    """

    def __init__(self, message: str | None = None, *, request_id: str | int | None = None) -> None:
        super().__init__(
            message or "The server's shared state store is unreachable; retry shortly",
            retry_after=RETRY_AFTER_SECONDS,
            request_id=request_id,
        )


def spawn_tolerant(tasks: set[asyncio.Task[Any]], work: Awaitable[object]) -> None:
    """Run ``work`` in the background on the running loop, ignoring :class:`StateUnavailable`
    (the shared store being down is answered elsewhere); ``tasks`` holds it until it ends."""

    async def run() -> None:
        with contextlib.suppress(StateUnavailable):
            await work

    task = asyncio.get_running_loop().create_task(run())
    tasks.add(task)
    task.add_done_callback(tasks.discard)
