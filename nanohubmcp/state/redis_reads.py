"""Every waiting read of a process's event logs, served by one blocking ``XREAD`` on one connection.

A stream read from its log (a GET ``/mcp`` stream, a resumed POST stream:
:class:`~nanohubmcp.server.wire.relay_streams.RelayStream`) waits in a read for what other
processes write. One blocking ``XREAD`` per waiting stream took one pooled connection each for
seconds at a time, so about 100 open GET streams in one process (redis-py's default pool) left
no connection for anything else: every other request got 503. Here the reads of a process share
one connection of their own (not the pool): one ``XREAD`` names every log a reader waits on, each
at its reader's position; what it returns wakes the readers it is for, and the next ``XREAD``
names the logs waited on then.

A read that starts while the ``XREAD`` is out, for a log it does not name at that position (a
new stream, a resume from an older position), wakes it: the ``XREAD`` also names this process's
wake log ``wk:<process>``, and the new read adds an entry to it (once until the next ``XREAD``
is sent; through the pool). Readers woken by an answer ask again before the next ``XREAD`` is
sent (it waits one turn of the loop for them), so a stream's steady reading costs no wake.

What this module does not own: the connection's outage handling (the store's guard, which marks
the store down and up), the ordinary commands (the pool), the writes
(:mod:`~nanohubmcp.state.redis_events`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from .base import Fields
from .errors import StateUnavailable, spawn_tolerant

BATCH = 256
"""Entries read per log per ``XREAD``."""
BLOCK_MS = 5_000
"""How long the shared ``XREAD`` waits (each reader's own wait is its own, usually shorter)."""
RETRY_SECONDS = 0.5
"""Pause before the shared ``XREAD`` is sent again after the store failed it."""
WAKE_TTL = 60
"""Seconds the wake log outlives its last entry."""

Guard = Callable[[], contextlib.AbstractAsyncContextManager[Any]]


def _position(entry_id: str) -> tuple[int, int]:
    """An entry id (``"<ms>-<seq>"``) as a pair that orders like the log."""
    ms, _, seq = entry_id.partition("-")
    try:
        return int(ms), int(seq or 0)
    except ValueError:
        return 0, 0


class _Read:
    __slots__ = ("after", "future", "key")

    def __init__(self, key: str, after: str, future: asyncio.Future[list[tuple[str, Fields]]]) -> None:
        self.key = key
        self.after = after
        self.future = future


class SharedReads:
    """The waiting reads of one process's event logs (module docstring).

    Args:
        reader_guard: the reads' own connection as an async context manager (connection errors
            become :class:`~nanohubmcp.state.errors.StateUnavailable`).
        pool_guard: the store's pooled client, for the wake entries.
        wake_key: this process's wake log.
    """

    def __init__(self, reader_guard: Guard, pool_guard: Guard, wake_key: str) -> None:
        self._reader_guard = reader_guard
        self._pool_guard = pool_guard
        self._wake_key = wake_key
        self._waiting: dict[str, list[_Read]] = {}
        self._sent: dict[str, str] | None = None
        """What the ``XREAD`` out now names (log: position); None while none is out."""
        self._woken = False
        self._wake_after = "0-0"
        self._work: asyncio.Event | None = None
        self._stopped = False
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self, loop: asyncio.AbstractEventLoop) -> asyncio.Task[None]:
        """Start the process's one reading task on ``loop`` (the caller cancels it to stop)."""
        self._work = asyncio.Event()
        return loop.create_task(self._run())

    def stop(self) -> None:
        """End the reading task at its next step (the store is closing)."""
        self._stopped = True
        if self._work is not None:
            self._work.set()

    @property
    def waiting(self) -> int:
        """Reads waiting now."""
        return sum(len(reads) for reads in self._waiting.values())

    async def read(self, key: str, after: str, block_ms: int) -> list[tuple[str, Fields]]:
        """Entries of log ``key`` after the entry id ``after``, waiting up to ``block_ms`` ([] then).

        Raises:
            StateUnavailable: the store failed the shared read meanwhile.
        """
        future: asyncio.Future[list[tuple[str, Fields]]] = asyncio.get_running_loop().create_future()
        read = _Read(key, after, future)
        self._waiting.setdefault(key, []).append(read)
        self._need(key, after)
        try:
            return await asyncio.wait_for(asyncio.shield(future), block_ms / 1000)
        except asyncio.TimeoutError:
            return []  # what came meanwhile is read again from the same position
        finally:
            if not future.done():
                future.cancel()
            elif not future.cancelled():
                future.exception()  # retrieved: an outage the caller did not wait to see
            reads = self._waiting.get(key)
            if reads is not None and read in reads:
                reads.remove(read)
                if not reads:
                    del self._waiting[key]

    def _need(self, key: str, after: str) -> None:
        """A read of ``key`` after ``after`` waits: make sure an ``XREAD`` will name it."""
        if self._sent is None:
            if self._work is not None:
                self._work.set()  # the next XREAD, about to be sent, names it
            return
        sent = self._sent.get(key)
        if sent is not None and _position(sent) <= _position(after):
            return  # the XREAD out answers it
        if not self._woken:
            self._woken = True
            spawn_tolerant(self._tasks, self._wake())

    async def _wake(self) -> None:
        try:
            async with self._pool_guard() as client:
                pipe = client.pipeline(transaction=False)
                pipe.xadd(self._wake_key, {"w": "1"}, maxlen=1, approximate=False)
                pipe.expire(self._wake_key, WAKE_TTL)
                await pipe.execute()
        except BaseException:
            self._woken = False  # not sent: a later read tries again (the XREAD out ends in BLOCK_MS anyway)
            raise

    async def _run(self) -> None:
        """Send the shared ``XREAD`` while reads wait, until :meth:`stop`."""
        assert self._work is not None
        while not self._stopped:
            if not self._waiting:
                self._work.clear()
                await self._work.wait()
            await asyncio.sleep(0)  # readers just answered ask again first (module docstring)
            if self._stopped:
                return
            names: dict[str, str] = {}
            for key, reads in self._waiting.items():
                live = [r.after for r in reads if not r.future.done()]
                if live:
                    names[key] = min(live, key=_position)
            if not names:
                continue
            self._sent = dict(names)
            self._woken = False
            names[self._wake_key] = self._wake_after
            try:
                async with self._reader_guard() as client:
                    found = await client.xread(names, count=BATCH, block=BLOCK_MS)
            except StateUnavailable as exc:
                self._sent = None
                self._fail(exc)
                if self._stopped:
                    return
                await asyncio.sleep(RETRY_SECONDS)
                continue
            self._sent = None
            self._deliver(found)

    def _deliver(self, found: Any) -> None:
        pairs = found.items() if isinstance(found, dict) else (found or [])
        for key, entries in pairs:
            key = str(key)
            if entries and isinstance(entries[0], list) and len(entries) == 1 and isinstance(entries[0][0], list):
                entries = entries[0]  # RESP3 shape: {key: [[entries]]}
            if not entries:
                continue
            if key == self._wake_key:
                self._wake_after = str(entries[-1][0])
                continue
            got = [(str(entry_id), dict(fields)) for entry_id, fields in entries]
            for read in list(self._waiting.get(key, ())):
                if read.future.done():
                    continue
                mine = _position(read.after)
                new = [entry for entry in got if _position(entry[0]) > mine]
                if new:
                    read.future.set_result(new)

    def _fail(self, exc: StateUnavailable) -> None:
        for reads in self._waiting.values():
            for read in reads:
                if not read.future.done():
                    read.future.set_exception(exc)
