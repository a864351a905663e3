"""The bound on response bytes the server holds for clients that do not read them.

A response leaves through Tornado's ``finish()`` (or an SSE writer's ``flush()``), whose future is
done once the socket took every byte. A client that never reads leaves the bytes in the server's
memory until it closes: 40 tiny requests for a large result, never read, held 1.3 GB. Each server
keeps one :class:`UnsentBudget`; a handler tells it about a response only when that future is
not done at once (a client that keeps up costs one ``done()`` check), and the budget:

- counts the bytes each connection has not taken, in one total for the server;
- closes connections, oldest first, while the total is over ``max_unsent_bytes`` (the newest
  response is kept: one response larger than the whole budget still goes out alone);
- closes a connection whose bytes have not drained within :data:`DRAIN_GRACE` seconds plus one
  second per :data:`DRAIN_RATE` bytes it was handed (a client reading at that rate never hits it).

Connections are timed by one timer, armed only while some connection holds unsent bytes.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from tornado.http1connection import HTTP1Connection

log = logging.getLogger("nanohubmcp.http")

DEFAULT_MAX_UNSENT_BYTES = 256 * 1024 * 1024
"""Most response bytes a server holds for clients that have not read them (``max_unsent_bytes``)."""
DRAIN_GRACE = 30.0
"""Seconds any response may take to drain, beside its size's share (:data:`DRAIN_RATE`)."""
DRAIN_RATE = 64 * 1024
"""Bytes per second a client must at least read: a response of ``n`` bytes has ``n / DRAIN_RATE``
seconds beyond :data:`DRAIN_GRACE`."""
SWEEP_SECONDS = 1.0
"""How often held connections are checked against their deadlines."""


class _Held:
    __slots__ = ("deadline", "size")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.size = 0


class UnsentBudget:
    """The unsent response bytes of one server's connections, and the rules of the module text.

    Args:
        limit: most bytes held in all (``max_unsent_bytes``).

    Every method runs on the server's event loop.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        """Bytes handed to connections and not yet taken by their sockets."""
        self._held: dict[HTTP1Connection, _Held] = {}  # insertion order: oldest first
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        """How many connections hold unsent bytes."""
        return len(self._held)

    def hold(self, connection: Any, size: int, future: asyncio.Future[Any]) -> None:
        """Count ``size`` bytes written on ``connection`` until ``future`` (the write's) is done.

        Call it only when ``future`` is not done yet; closes connections as the module text says.
        """
        if not isinstance(connection, HTTP1Connection) or connection.stream.closed():
            return
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        entry = self._held.get(connection)
        if entry is None:
            entry = self._held[connection] = _Held(loop.time() + DRAIN_GRACE)
        entry.size += size
        entry.deadline += size / DRAIN_RATE
        self.total += size
        future.add_done_callback(lambda _done: self._taken(connection, entry, size))
        if self.total > self.limit:
            self._shed(connection)
        if self._timer is None:
            self._timer = loop.call_later(SWEEP_SECONDS, self._sweep)

    def _taken(self, connection: HTTP1Connection, entry: _Held, size: int) -> None:
        if self._held.get(connection) is not entry:
            return  # closed by the budget: already uncounted
        entry.size -= size
        self.total -= size
        if entry.size <= 0:
            del self._held[connection]

    def _shed(self, newest: HTTP1Connection) -> None:
        for connection in list(self._held):
            if self.total <= self.limit:
                return
            if connection is not newest:
                self._close(connection, "the server holds more than max_unsent_bytes for unread responses")

    def _sweep(self) -> None:
        self._timer = None
        assert self._loop is not None
        now = self._loop.time()
        for connection, entry in list(self._held.items()):
            if entry.deadline <= now:
                self._close(connection, "its client did not read it in time")
        if self._held:
            self._timer = self._loop.call_later(SWEEP_SECONDS, self._sweep)

    def _close(self, connection: HTTP1Connection, why: str) -> None:
        entry = self._held.pop(connection)
        self.total -= entry.size
        log.warning("closing a connection with %d bytes of response unsent: %s", entry.size, why)
        connection.close()
