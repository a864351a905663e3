"""The bytes of request bodies being received at once, bounded over every connection and per principal.

Each request body the server will keep (a ``Content-Length`` within ``max_request_bytes``;
a chunked body counts as ``max_request_bytes``) that is still on its way when its headers arrive takes
its size from the application's :class:`BodyBudget` once its token was checked, and gives it back when
the body is complete or the connection closes. A body over :data:`UNCOUNTED_BYTES` always counts; a
smaller one only when it did not come whole with its headers (a client sending its headers first, or
stalling part-way): one that did is complete at once, so taking and giving back its bytes in the same
step would change nothing but refuse a body the server holds already, and the common request (a tool
call of a few hundred bytes, sent in one write) pays one comparison for the budget.

A body that would take the total over ``max_buffered_bytes``, or its principal's bodies over
``max_buffered_bytes_per_principal``, is answered ``503 Service Unavailable`` with ``Retry-After`` before
it is read, then read and dropped, never kept (:mod:`.bodies`; its route's checks come first: a client
without a token still gets its 401, and takes nothing), so a crowd of clients sending bodies at once
cannot make the server hold more than that bound, and one principal holding connections open with
bodies it does not finish cannot take it all from the others, whatever their size (a fresh-user trial,
trial33 W11: 4000 connections of one token holder, each sending 65,000 bytes of a 64 KiB body and then
nothing, held ~250 MB counted nowhere; now its share).
Without authorization every client is the same anonymous caller: only the overall bound applies.

Source: RFC 9110 § 15.6.4 (503) and § 10.2.3 (Retry-After).
"""

from __future__ import annotations

UNCOUNTED_BYTES = 64 * 1024
"""Bodies up to this size are counted only when they did not come whole with their headers (module
text); a larger one, more than one read of the connection's socket (Tornado reads 64 KiB at a time),
always counts. "Whole with its headers" means in the read that brought the headers: on the runner's
server that read takes :data:`~nanohubmcp.transports.http_server.FIRST_READ_BYTES` (8 KiB), so there a
body that did not fit in it beside its headers counts too.

.. versionchanged:: 1.0 (issue 28) the runner's server reads a request's headers 8 KiB at a time."""
RETRY_SECONDS = 1
"""The ``Retry-After`` of a body refused for the budget (bodies in flight finish within seconds)."""
PRINCIPAL_SHARE = 8
"""The default ``max_buffered_bytes_per_principal`` is this fraction of ``max_buffered_bytes`` (at least
``max_request_bytes``): 32 MiB of the default 256 MiB, so it takes eight principals to fill the budget."""
OVERALL = "max_buffered_bytes"
""":meth:`BodyBudget.take`'s answer when the overall bound refused the body."""
PER_PRINCIPAL = "max_buffered_bytes_per_principal"
""":meth:`BodyBudget.take`'s answer when the principal's share refused the body."""


def principal_share(max_buffered_bytes: int, max_request_bytes: int) -> int:
    """The default ``max_buffered_bytes_per_principal``: an eighth of the bound, at least one body of the
    largest size."""
    return max(max_request_bytes, max_buffered_bytes // PRINCIPAL_SHARE)


class BodyBudget:
    """The bytes of bodies being received on one application (used on its event loop only).

    Args:
        limit: the most bytes held at once (``max_buffered_bytes``).
        share: the most of them one principal holds at once (``max_buffered_bytes_per_principal``);
            None: the whole ``limit``.
    """

    __slots__ = ("_held", "_owned", "limit", "share", "used")

    def __init__(self, limit: int, share: int | None = None) -> None:
        self.limit = limit
        self.share = limit if share is None else share
        self.used = 0
        """The bytes taken by bodies on their way in."""
        self._held: dict[object, tuple[int, str | None]] = {}
        self._owned: dict[str, int] = {}
        """Per principal (its subject), the bytes its bodies on their way in took."""

    def take(self, key: object, size: int, owner: str | None = None) -> str | None:
        """Take ``size`` bytes for the body of the request on connection ``key``, sent by principal
        ``owner`` (its subject; None: anonymous, the overall bound alone). None when taken; else the
        name of the limit it would pass (:data:`PER_PRINCIPAL` or :data:`OVERALL`), nothing taken."""
        if owner is not None:
            owned = self._owned.get(owner, 0) + size
            if owned > self.share:
                return PER_PRINCIPAL
            if self.used + size > self.limit:
                return OVERALL
            self._owned[owner] = owned
        elif self.used + size > self.limit:
            return OVERALL
        self.used += size
        self._held[key] = (size, owner)
        return None

    def give_back(self, key: object) -> None:
        """Return what the request on connection ``key`` took (its body is complete, or it closed)."""
        held = self._held.pop(key, None)
        if held is None:
            return
        size, owner = held
        self.used -= size
        if owner is not None:
            left = self._owned[owner] - size
            if left:
                self._owned[owner] = left
            else:
                del self._owned[owner]
