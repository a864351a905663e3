"""Exceptions as wire errors: the one map to JSON-RPC ``error`` members and HTTP statuses.

Owns :func:`to_error_object` (any exception -> ``{code, message, data?}``, the only such
mapping), :func:`error_response` (the whole error message), the routes (``HANDSHAKE_ROUTE``,
``MODERN_ROUTE``, ``REST_ROUTE``) and the status each code travels with on each
(:func:`http_status_for`, :func:`http_status_of`). The exceptions are :mod:`.protocol`'s and
:mod:`.base`'s.

Source: MCP 2026-07-28, Transports § Streamable HTTP § Status codes; JSON-RPC 2.0 § 5.
"""

from __future__ import annotations

from typing import Any

from .codes import (
    FORBIDDEN,
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY,
    PARSE_ERROR,
    RESOURCE_NOT_FOUND,
    SERVER_BUSY,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from .protocol import ProtocolError

__all__ = [
    "HANDSHAKE_ROUTE",
    "INTERNAL_MESSAGE",
    "MODERN_ROUTE",
    "REST_ROUTE",
    "error_response",
    "http_status_for",
    "http_status_of",
    "to_error_object",
]

INTERNAL_MESSAGE = "Internal error; see the server log"
"""The whole text a client gets for a fault of the server itself: its exception's message names the
server's internals (a codec, a store, a path) and stays in the log."""
HANDSHAKE_ROUTE = "handshake"
"""A JSON-RPC route of the handshake era (Streamable HTTP, legacy SSE, ``POST /``)."""
MODERN_ROUTE = "modern"
"""A request of the stateless era (2026-07-28) over Streamable HTTP."""
REST_ROUTE = "rest"
"""``POST /tools/<name>``: the package's own REST mapping of ``tools/call``."""

_STATUS_EVERY_ROUTE = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    HEADER_MISMATCH: 400,
    MISSING_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    SERVER_BUSY: 503,
    FORBIDDEN: 403,
}
_STATUS_BY_ROUTE: dict[str, tuple[dict[int, int], int, int]] = {
    HANDSHAKE_ROUTE: ({}, 200, 200),
    MODERN_ROUTE: ({METHOD_NOT_FOUND: 404}, 200, 200),
    REST_ROUTE: ({INVALID_PARAMS: 400, RESOURCE_NOT_FOUND: 404}, 403, 500),
}
"""Per route: the statuses of its own codes; the status of any other code of the server's or the
application's own (:func:`_own_code`: a middleware's deliberate refusal); the status of the rest
(JSON-RPC's predefined codes, -32603 internal error)."""
_PREDEFINED = range(-32768, -32099)
"""The codes JSON-RPC 2.0 § 5.1 reserves for itself (-32768 to -32100; -32099 to -32000 are left to
the server, and every code outside -32768 to -32000 to the application)."""


def _own_code(code: object) -> bool:
    """Whether ``code`` is the server's or the application's own, not one JSON-RPC predefines."""
    return type(code) is int and code not in _PREDEFINED


def http_status_for(error: dict[str, Any], route: str = HANDSHAKE_ROUTE) -> int:
    """Return the HTTP status for a JSON-RPC error object on ``route``: the one such map.

    On every route: parse and envelope errors and the 2026-07-28 codes (-32700, -32600,
    header mismatch, missing client capability, unsupported protocol version) are 400, a reached
    limit (-32000) 503 (with ``Retry-After``), a missing scope (-32003) 403. Otherwise:

    - handshake era (``HANDSHAKE_ROUTE``): 200, the error in the body;
    - 2026-07-28 era (``MODERN_ROUTE``): an unknown method (-32601) 404, anything else 200 (a
      request missing its ``_meta``, :class:`InvalidEnvelope`, is 400 at the edge);
    - REST (``REST_ROUTE``): invalid arguments (-32602) 400, an unknown resource (-32002) 404, a
      code of the server's or the application's own — -32099 to -32001, or any code outside
      JSON-RPC's reserved -32768 to -32000 (a middleware's deliberate refusal; a bare
      ``ProtocolError``'s -32004 among them) — 403, and the rest (-32603 internal error,
      JSON-RPC's other reserved codes) 500.

    Args:
        error: a JSON-RPC ``error`` member (``{"code": int, "message": str, ...}``); a missing or
            non-integer code counts as reserved (500 over REST, 200 elsewhere).
        route: ``HANDSHAKE_ROUTE`` (default), ``MODERN_ROUTE`` or ``REST_ROUTE``.
    Returns:
        The HTTP status code (200 when the error travels in a successful response's body).

    Source: MCP 2026-07-28, Transports § Streamable HTTP § Status codes; JSON-RPC 2.0 § 5.1.
    """
    code = error.get("code")
    status = _STATUS_EVERY_ROUTE.get(code)  # type: ignore[arg-type]
    if status is not None:
        return status
    own, application, otherwise = _STATUS_BY_ROUTE[route]
    status = own.get(code)  # type: ignore[arg-type]
    if status is not None:
        return status
    return application if _own_code(code) else otherwise


def http_status_of(exc: BaseException, route: str = HANDSHAKE_ROUTE) -> int:
    """The HTTP status of a refusal a transport answers itself, before or instead of the core
    (never below 400): the exception's own :attr:`ProtocolError.http_status`, else the status its
    code maps to on ``route`` (:func:`http_status_for`)."""
    if isinstance(exc, ProtocolError) and exc.http_status is not None:
        return exc.http_status
    return max(400, http_status_for(to_error_object(exc), route))


def to_error_object(exc: BaseException) -> dict[str, Any]:
    """Map any exception to a JSON-RPC ``error`` member; the only such mapping.

    A :class:`ProtocolError` keeps its code, message and data; anything else becomes
    -32603 with a generic message (details stay in the server log, never on the wire).
    """
    if isinstance(exc, ProtocolError):
        return exc.to_error()
    return {"code": INTERNAL_ERROR, "message": INTERNAL_MESSAGE}


def error_response(exc: BaseException, request_id: object = None) -> dict[str, Any]:
    """The JSON-RPC error response for ``exc`` (``id`` null when the request's id is unknown).

    Source: JSON-RPC 2.0 § 5 (Response object), § 5.1 (Error object).
    """
    return {"jsonrpc": "2.0", "id": request_id, "error": to_error_object(exc)}
