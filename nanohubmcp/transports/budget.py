"""The bytes of request bodies being received at once, bounded over every connection.

Each request body the server will keep (a ``Content-Length`` within ``max_request_bytes``;
a chunked body counts as ``max_request_bytes``) above :data:`UNCOUNTED_BYTES` takes its size from the application's
:class:`BodyBudget` when its headers arrive, and gives it back when the body is complete or
the connection closes. A body that would take the total over ``max_buffered_bytes`` is
answered ``503 Service Unavailable`` with ``Retry-After`` before it is read (its route's
checks come first: a client without a token still gets its 401), so a crowd of clients
sending large bodies at once cannot make the server hold more than that bound.

Source: RFC 9110 § 15.6.4 (503) and § 10.2.3 (Retry-After).
"""

from __future__ import annotations

UNCOUNTED_BYTES = 64 * 1024
"""Bodies up to this size are not counted: no more than one read of the connection's socket
(Tornado reads 64 KiB at a time), which every open connection may hold anyway. The common
request (a tool call of a few hundred bytes) pays nothing for the budget."""
RETRY_SECONDS = 1
"""The ``Retry-After`` of a body refused for the budget (bodies in flight finish within seconds)."""


class BodyBudget:
    """The bytes of bodies being received on one application (used on its event loop only).

    Args:
        limit: the most bytes held at once (``max_buffered_bytes``).
    """

    __slots__ = ("_held", "limit", "used")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        """The bytes taken by bodies on their way in."""
        self._held: dict[object, int] = {}

    def take(self, key: object, size: int) -> bool:
        """Take ``size`` bytes for the body of the request on connection ``key``; False (nothing
        taken) when that would pass the limit."""
        if self.used + size > self.limit:
            return False
        self.used += size
        self._held[key] = size
        return True

    def give_back(self, key: object) -> None:
        """Return what the request on connection ``key`` took (its body is complete, or it closed)."""
        size = self._held.pop(key, 0)
        self.used -= size
