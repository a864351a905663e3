"""Letting go of ended Dask jobs in batches (``job_executor="dask"``): :class:`Farewells`.

A job's future is kept by the server's ``distributed.Client`` until the client lets go of it (the scheduler may
then drop its result), and a job on a scheduler the server did not start is published under its key while it
runs; both are taken back here, for every job that ended within :data:`LET_GO_SECONDS`, in one batch on the
client's event loop. ``distributed`` is never imported here: the client is handed in.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from typing import Any

LET_GO_SECONDS = 1.0
"""How long after a job ended the client lets go of it (its future and its publication), together
with every job that ended meanwhile."""
FORGET_WAIT_SECONDS = 10.0
"""How long a stopping server waits for the client to let go of the jobs that ended."""


class Farewells:
    """Jobs that ended, which the client lets go of together :data:`LET_GO_SECONDS` after the first
    of them: their futures (the scheduler may then drop the results) and their publications.

    Not at each job's end: the client sends what it has to say within 10 ms in one batch, so a
    message sent just after a job ended would hold back the submission of a job that comes a few
    milliseconds later (the next call of a client that waited for the previous one) until that
    batch's 10 ms are over; once a second, a whole burst of jobs is let go of in one batch.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ended: list[tuple[Any, str, concurrent.futures.Future[None] | None]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._going: asyncio.Future[None] | None = None

    def add(self, client: Any, future: Any, key: str, published: concurrent.futures.Future[None] | None) -> None:
        """Let go of ``future`` (the job ``key``, published when ``published`` is done) soon."""
        with self._lock:
            self._ended.append((future, key, published))
            first = len(self._ended) == 1
        if first:
            loop = client.loop.asyncio_loop
            with contextlib.suppress(RuntimeError):  # the client closed meanwhile: the scheduler let go of it all
                loop.call_soon_threadsafe(self._arm, loop, client)

    def _arm(self, loop: asyncio.AbstractEventLoop, client: Any) -> None:  # on the client's loop
        self._timer = loop.call_later(LET_GO_SECONDS, self._fire, client)

    def _fire(self, client: Any) -> None:  # on the client's loop
        self._going = asyncio.ensure_future(self._let_go(client))

    async def _let_go(self, client: Any) -> None:  # on the client's loop
        with self._lock:
            ended, self._ended, self._timer = self._ended, [], None
        await asyncio.gather(*(_forget(client, key, published) for _, key, published in ended), return_exceptions=True)

    def let_go_now(self, client: Any) -> None:
        """Let go of every ended job at once (the server stops; waits at most
        :data:`FORGET_WAIT_SECONDS`)."""

        async def now() -> None:
            if self._timer is not None:
                self._timer.cancel()
            if self._going is not None:
                await self._going  # the jobs let go of a moment ago
            await self._let_go(client)

        with contextlib.suppress(Exception):  # a client that lost its scheduler lets go of nothing
            asyncio.run_coroutine_threadsafe(now(), client.loop.asyncio_loop).result(FORGET_WAIT_SECONDS)


async def _forget(client: Any, key: str, published: concurrent.futures.Future[None] | None) -> None:
    if published is not None:
        with contextlib.suppress(Exception):  # not published: nothing to take back, but no harm asking
            await asyncio.wrap_future(published)
    with contextlib.suppress(KeyError):
        await client.unpublish_dataset(key)
