"""One timer per event loop for every request body on its way in (the slow-body guard).

A request whose body has not fully arrived ``BODY_TIMEOUT`` seconds (:mod:`.base`) after its headers loses
its connection (a client trickling a body cannot hold a connection, or the memory of a half-read
body, for minutes). Rather than a timer per request (made and cancelled on every POST), each loop
keeps the requests still reading their bodies in one table, oldest first, and one timer sweeps
it every :data:`SWEEP_SECONDS` (re-armed only while the table is not empty): a body is given up
between ``BODY_TIMEOUT`` and ``BODY_TIMEOUT + SWEEP_SECONDS`` seconds after its headers.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable

SWEEP_SECONDS = 1.0
"""How often the table is swept while it holds a request (at most; a quarter of the timeout when shorter)."""


class BodyDeadlines:
    """The requests of one event loop still reading their bodies, and their deadlines.

    Args:
        loop: the loop the requests are served on (every method runs there).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._pending: dict[object, tuple[float, Callable[[], None]]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._interval = SWEEP_SECONDS

    def add(self, key: object, seconds: float, expire: Callable[[], None]) -> None:
        """Call ``expire`` once ``seconds`` have passed, unless :meth:`discard` comes first."""
        self._pending[key] = (self._loop.time() + seconds, expire)
        if self._timer is None:
            self._interval = min(SWEEP_SECONDS, seconds / 4)
            self._timer = self._loop.call_later(self._interval, self._sweep)

    def discard(self, key: object) -> None:
        """Forget ``key`` (its body arrived, or its request ended)."""
        self._pending.pop(key, None)

    def _sweep(self) -> None:
        self._timer = None
        now = self._loop.time()
        expired = [key for key, (deadline, _) in self._pending.items() if deadline <= now]
        for key in expired:
            entry = self._pending.pop(key, None)
            if entry is not None:
                entry[1]()
        if self._pending:
            self._timer = self._loop.call_later(self._interval, self._sweep)


_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, BodyDeadlines] = weakref.WeakKeyDictionary()


def body_deadlines(loop: asyncio.AbstractEventLoop) -> BodyDeadlines:
    """The table of ``loop`` (made on first use)."""
    table = _BY_LOOP.get(loop)
    if table is None:
        table = _BY_LOOP[loop] = BodyDeadlines(loop)
    return table
