"""A one-peer connection's requests in no session, known by their ids (the seam's rule 4, last part).

A connection with one client (``one_peer``: stdio, an in-memory client) serves requests that belong to no
session: every 2026-07-28 request, and a handshake-era one sent without ``initialize``. Over HTTP the client
cancels one by closing its connection or stream; here nothing but its id names it, so the connection keeps
them by id (:class:`Sessionless`): a ``notifications/cancelled`` naming one withdraws it, as a session's
would be (MCP 2025-11-25, Utilities § Cancellation), an id already in use is refused (:func:`id_in_use`, the
same refusal a session's requests get), and at most :data:`~.layers.MAX_IN_FLIGHT_PER_SESSION` run at once,
a session's bound. Serving them is the connection's (:mod:`.connection`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InvalidRequest, ProtocolError, ServerBusy
from ..protocol import jsonrpc
from ..protocol.message_values import show
from .layers import BUSY_RETRY_SECONDS, MAX_IN_FLIGHT_PER_SESSION

if TYPE_CHECKING:
    from .wire.request import RequestContext


def id_in_use(request_id: object) -> InvalidRequest:
    """The refusal of a request whose id a request of the same session (or of a one-peer connection's, in no
    session) still in progress has: its answer would carry the same id, and a ``notifications/cancelled`` naming
    it could not say which (MCP Basic: a request's id MUST NOT have been used before by its sender in the same
    session)."""
    return InvalidRequest(f"Request id {show(request_id)} is already in use by a request in progress; "
                          "give each request an id of its own")


class Sessionless:
    """The requests in no session a one-peer connection is serving, by id (see the module docstring)."""

    __slots__ = ("_by_id",)

    def __init__(self) -> None:
        self._by_id: dict[str | int, RequestContext] = {}

    def start(self, request_id: str | int, request: RequestContext) -> ProtocolError | None:
        """Keep ``request`` under its id while it is served (until :meth:`done`); or the refusal that answers it:
        its id is in use (:func:`id_in_use`), or as many are in flight as a session may have (busy)."""
        if request_id in self._by_id:
            return id_in_use(request_id)
        if len(self._by_id) >= MAX_IN_FLIGHT_PER_SESSION:  # the same bound a session has
            return ServerBusy(f"Too many requests in flight (at most {MAX_IN_FLIGHT_PER_SESSION}); wait for answers "
                              "before sending more", retry_after=BUSY_RETRY_SECONDS)
        self._by_id[request_id] = request
        return None

    def done(self, request_id: str | int) -> None:
        """The request of this id was served."""
        self._by_id.pop(request_id, None)

    def withdraw(self, message: jsonrpc.Message) -> bool:
        """Serve a ``notifications/cancelled`` naming one of these requests: it is cancelled, as a session's would
        be, and gets no response (there is no session to find it in). True when it named one; False for any other
        message (serve it as usual). A ``requestId`` that is no JSON-RPC id names nothing (``true`` never means
        id 1)."""
        if message.kind != jsonrpc.NOTIFICATION or message.method != "notifications/cancelled":
            return False
        params = message.params or {}
        request_id = params.get("requestId")
        target = self._by_id.get(request_id) if jsonrpc.valid_id(request_id) else None
        if target is None:
            return False
        reason = params.get("reason")
        target.cancel(reason if isinstance(reason, str) else "cancelled by the client", withdrawn=True)
        return True
