"""The server's built-in layers of the call pipeline, written to the same interface as a user's.

- :func:`version_gate`: a method the request's protocol era does not have is -32601 (the
  handshake era has no ``server/discover``, 2026-07-28 has no ``initialize`` or ``ping``; the
  message says how to reach a method of the other era, :func:`~nanohubmcp.protocol.versions.other_era_hint`);
- :func:`session_limit`: a session may have at most :data:`MAX_IN_FLIGHT_PER_SESSION` requests
  being served at once; one more is -32000 with ``data.retryAfter`` (HTTP 503 with
  ``Retry-After``): the session's map of requests in flight is keyed by the client's ids, and
  every map keyed by client input is bounded;
- :func:`tool_scopes`: a ``tools/call`` of a tool registered with ``scopes=`` by a caller whose
  token lacks them is -32003 (HTTP 403 ``insufficient_scope``; nothing is checked without
  authorization configured).

They are plain functions handing on ``call_next(request)``'s awaitable (a refusal raises at once),
so a request passes them without a coroutine level each; a user's layer is an ``async def``.
Each comes with the routes it acts on (:class:`~.middleware.Layer`): the gate only where the era
lacks the method, the session limit only in a session, the scope check only for a ``tools/call``
of an authenticated caller; a route's chain leaves the others out.

Source: MCP 2025-11-25, Basic § JSON-RPC error codes; MCP 2025-06-18, Basic § Authorization
(scope challenge handling).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import MethodNotFound, ServerBusy
from ..protocol import versions
from ..schema.paths import echoed
from .middleware import Layer
from .wire.scopes import check_tool_scopes

if TYPE_CHECKING:
    from .middleware import CallNext, Request, Route


def version_gate(handshake: Mapping[str, object], modern: Mapping[str, object]) -> Layer:
    """The layer refusing methods the request's era lacks (the two eras' method tables); it acts
    on the routes whose method the era's table does not have."""

    def gate(request: Request, call_next: CallNext) -> Awaitable[dict[str, Any]]:
        is_modern = request.context.modern
        table, other = (modern, handshake) if is_modern else (handshake, modern)
        method = request.method
        if method not in table:
            hint = versions.other_era_hint(method, is_modern, method in other)
            raise MethodNotFound(f"Method not found: {echoed(method)}" + (f". {hint}" if hint else ""))
        return call_next(request)

    def acts(route: Route) -> bool:
        return route.method not in (modern if route.modern else handshake)

    return Layer(gate, acts)


MAX_IN_FLIGHT_PER_SESSION = 256
"""Most requests one session may have served at once (far above what any client pipelines)."""
BUSY_RETRY_SECONDS = 1
"""``Retry-After`` of a request refused for the session's limit (its other requests answer soon)."""


def session_limit(limit: int | None = None) -> Layer:
    """The layer bounding a session's requests in flight (this one counted) at ``limit``
    (default :data:`MAX_IN_FLIGHT_PER_SESSION` when the server is built); it acts in sessions."""
    if limit is None:
        limit = MAX_IN_FLIGHT_PER_SESSION

    def limits(request: Request, call_next: CallNext) -> Awaitable[dict[str, Any]]:
        session = request.context.session
        if session is not None and len(session.in_flight) > limit:
            raise ServerBusy(
                f"Too many requests in flight on this session (at most {limit}); wait for answers before "
                "sending more",
                retry_after=BUSY_RETRY_SECONDS,
            )
        return call_next(request)

    return Layer(limits, _in_session)


def _in_session(route: Route) -> bool:
    return route.in_session


def tool_scopes() -> Layer:
    """The layer checking a ``tools/call``'s caller has the scopes the tool was registered with;
    it acts on the ``tools/call`` of an authenticated caller (without authorization configured
    there is nothing to check)."""

    def scopes(request: Request, call_next: CallNext) -> Awaitable[dict[str, Any]]:
        principal = request.context.principal
        if principal is not None and request.method == "tools/call":
            check_tool_scopes(request.tool, principal)
        return call_next(request)

    return Layer(scopes, _authorized_call)


def _authorized_call(route: Route) -> bool:
    return route.authorized and route.method == "tools/call"
