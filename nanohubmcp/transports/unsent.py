"""The bound on response bytes the server holds for clients that do not read them.

A response leaves through Tornado's ``finish()`` (or an SSE writer's ``flush()``), whose future is
done once the socket took every byte. A client that never reads leaves the bytes in the server's
memory until it closes: 40 tiny requests for a large result, never read, held 1.3 GB. Each server
keeps one :class:`UnsentBudget`; a handler tells it about a response only when that future is
not done at once (a client that keeps up costs one ``done()`` check), and the budget:

- counts the bytes each connection has not taken, in one total for the server;
- closes connections while the total is over ``max_unsent_bytes``: first the oldest of the
  principal holding the most beyond its share (``max_unsent_bytes_per_principal``; on a tie, the
  principal of the answer that passed the bound), again while one is, then any, oldest first but the
  newest (one response larger than the whole budget still goes out alone). So one token holder's
  unread responses cost that principal its connections, the answer that passed the bound among them,
  not whoever started downloading first; without authorization every client is the same anonymous
  caller and only the overall bound applies;
- closes a connection whose bytes have not drained within :data:`DRAIN_GRACE` seconds plus one
  second per :data:`DRAIN_RATE` bytes it was handed (a client reading at that rate never hits it).

Connections are timed by one timer, armed only while some connection holds unsent bytes. A
connection's bytes count for the principal of the request that first left bytes on it unsent. The
writes a closed connection held are marked done (Tornado would leave them pending for ever), so
whoever awaits one learns that the connection is gone at its next write.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from tornado.http1connection import HTTP1Connection

from .limits import MIN_UNSENT_BYTES

log = logging.getLogger("nanohubmcp.http")

DRAIN_GRACE = 30.0
"""Seconds any response may take to drain, beside its size's share (:data:`DRAIN_RATE`)."""
DRAIN_RATE = 64 * 1024
"""Bytes per second a client must at least read: a response of ``n`` bytes has ``n / DRAIN_RATE``
seconds beyond :data:`DRAIN_GRACE`."""
SWEEP_SECONDS = 1.0
"""How often held connections are checked against their deadlines."""
PRINCIPAL_SHARE = 8
"""The default ``max_unsent_bytes_per_principal`` is this fraction of ``max_unsent_bytes`` (at least
:data:`MIN_SHARE`): 32 MiB of the default 256 MiB."""
MIN_SHARE = MIN_UNSENT_BYTES
"""The least ``max_unsent_bytes_per_principal`` (and ``max_unsent_bytes``) may be (:mod:`.limits`)."""


def principal_share(max_unsent_bytes: int) -> int:
    """The default ``max_unsent_bytes_per_principal``: an eighth of the bound, at least 1 MiB."""
    return max(MIN_SHARE, max_unsent_bytes // PRINCIPAL_SHARE)


def owner_of(handler: Any) -> str | None:
    """The subject of the principal ``handler``'s request was made by (None: anonymous)."""
    principal = getattr(handler, "principal", None)
    return None if principal is None else principal.subject


class _Held:
    __slots__ = ("deadline", "futures", "owner", "size")

    def __init__(self, deadline: float, owner: str | None) -> None:
        self.deadline = deadline
        self.owner = owner
        self.size = 0
        self.futures: set[asyncio.Future[Any]] = set()


class UnsentBudget:
    """The unsent response bytes of one server's connections, and the rules of the module text.

    Args:
        limit: most bytes held in all (``max_unsent_bytes``).
        share: the most of them one principal holds before its connections are the first closed
            (``max_unsent_bytes_per_principal``); None: the whole ``limit``.

    Every method runs on the server's event loop.
    """

    def __init__(self, limit: int, share: int | None = None) -> None:
        self.limit = limit
        self.share = limit if share is None else share
        self.total = 0
        """Bytes handed to connections and not yet taken by their sockets."""
        self._owned: dict[str, int] = {}
        """Per principal (its subject), the bytes its connections hold."""
        self._held: dict[HTTP1Connection, _Held] = {}  # insertion order: oldest first
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        """How many connections hold unsent bytes."""
        return len(self._held)

    def hold(self, connection: Any, size: int, future: asyncio.Future[Any], owner: str | None = None) -> None:
        """Count ``size`` bytes written on ``connection`` for principal ``owner`` (its subject, None:
        anonymous; :func:`owner_of`) until ``future`` (the write's) is done.

        Call it only when ``future`` is not done yet; closes connections as the module text says.
        """
        if not isinstance(connection, HTTP1Connection) or connection.stream.closed():
            return
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        entry = self._held.get(connection)
        if entry is None:
            entry = self._held[connection] = _Held(loop.time() + DRAIN_GRACE, owner)
        entry.size += size
        entry.deadline += size / DRAIN_RATE
        entry.futures.add(future)
        self.total += size
        if entry.owner is not None:
            self._owned[entry.owner] = self._owned.get(entry.owner, 0) + size
        future.add_done_callback(lambda done: self._taken(connection, entry, size, done))
        if self.total > self.limit:
            self._shed(connection)
        if self._timer is None:
            self._timer = loop.call_later(SWEEP_SECONDS, self._sweep)

    def _taken(self, connection: HTTP1Connection, entry: _Held, size: int, future: asyncio.Future[Any]) -> None:
        entry.futures.discard(future)
        if self._held.get(connection) is not entry:
            return  # closed by the budget: already uncounted
        entry.size -= size
        self.total -= size
        self._unown(entry.owner, size)
        if entry.size <= 0:
            del self._held[connection]

    def _unown(self, owner: str | None, size: int) -> None:
        if owner is not None:
            left = self._owned[owner] - size
            if left > 0:
                self._owned[owner] = left
            else:
                del self._owned[owner]

    def _shed(self, newest: HTTP1Connection) -> None:
        owned, held = self._owned, self._held
        if owned:  # first the principal holding the most beyond its share (on a tie, the newest answer's)
            last = held[newest].owner
            while self.total > self.limit and len(held) > 1:
                top = max(owned, key=lambda owner: (owned[owner], owner == last))
                if owned[top] <= self.share:
                    break
                victim = next(connection for connection, entry in held.items() if entry.owner == top)  # its oldest
                self._close(victim, "the server holds more than max_unsent_bytes for unread responses, and this "
                                    "principal the most beyond max_unsent_bytes_per_principal")
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
        self._unown(entry.owner, entry.size)
        log.warning("closing a connection with %d bytes of response unsent: %s", entry.size, why)
        connection.close()
        # Tornado forgets a write closed this way (its future is never done, and the handler hears of no
        # close): done now, as Tornado marks a write its stream closed under, so a writer awaiting it (an
        # answer written a piece at a time) goes on, finds the connection closed and stops.
        for future in list(entry.futures):
            if not future.done():
                future.set_result(None)
