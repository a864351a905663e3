"""The exceptions that travel as JSON-RPC error objects ``{code, message, data?}``.

Owns :class:`ProtocolError` (its code, message, data, the refused request's id, and the HTTP
status of a refusal a transport answers itself) and one subclass per code or per refusal at the
HTTP edge. Which HTTP status a code travels with on each route, and the mapping of any other
exception, are :mod:`.wire`'s; the codes themselves :mod:`.codes`'.
"""

from __future__ import annotations

from typing import Any

from .base import NanohubMCPError
from .codes import (
    FORBIDDEN,
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY,
    PARSE_ERROR,
    REFUSED,
    REQUEST_CANCELLED,
    RESOURCE_NOT_FOUND,
    SERVER_BUSY,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from .sent_text import sent_error

__all__ = [
    "ForbiddenOrigin",
    "HeaderMismatch",
    "InsufficientScope",
    "InternalError",
    "InvalidEnvelope",
    "InvalidParams",
    "InvalidRequest",
    "MethodNotAllowed",
    "MethodNotFound",
    "MisdirectedRequest",
    "MissingClientCapability",
    "NotAcceptable",
    "ParseError",
    "ProtocolError",
    "RequestCancelled",
    "RequestTooLarge",
    "ResourceNotFound",
    "RouteNotFound",
    "ServerBusy",
    "ServerStopping",
    "SessionNotFound",
    "StreamConflict",
    "Unauthorized",
    "UnknownComponent",
    "UnknownTool",
    "UnsupportedMediaType",
    "UnsupportedProtocolVersion",
]


class ProtocolError(NanohubMCPError):
    """An error that travels as a JSON-RPC error object.

    Args:
        message: the ``message`` member; say what was wrong and how to fix it.
        data: optional ``data`` member (JSON-serialisable).
        code: the ``code`` member, for a code of the application's own (-32000 to -32099 are
            free for servers). Without it: :data:`~nanohubmcp.errors.REFUSED` (-32004), a
            deliberate refusal (HTTP 403 over REST; a server fault is ``InternalError``, -32603,
            500). Each subclass has its own default (``InvalidParams``: -32602, REST 400, …).

    .. versionchanged:: 1.0.0.dev0
       The default code is -32004 (a refusal, REST 403); it was -32603 (an internal error, REST 500).
        request_id: the id of the request refused, when it could be read (the error response
            carries it).
    """

    code: int = REFUSED
    http_status: int | None = None
    """The HTTP status of this refusal when a transport answers it before the core serves the
    request; None: the status its code maps to (:func:`http_status_for`)."""

    def __init__(
        self, message: str, data: object = None, *, code: int | None = None, request_id: str | int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.data = data
        self.request_id = request_id
        if code is not None:
            self.code = code

    def to_error(self) -> dict[str, Any]:
        """Return the JSON-RPC ``error`` member ``{code, message, data?}``, a message or data (as JSON text) over
        65,536 characters cut for the client, saying so (:func:`~.sent_text.sent_error`: an answer sent as one SSE
        event stays within the official ``mcp`` client's 1 MiB); :attr:`message` and :attr:`data` stay whole."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return sent_error(error)


class ParseError(ProtocolError):
    """The body is not valid JSON (-32700, HTTP 400)."""

    code = PARSE_ERROR


class InvalidRequest(ProtocolError):
    """The body is JSON but not a valid JSON-RPC message (-32600, HTTP 400)."""

    code = INVALID_REQUEST


class MethodNotFound(ProtocolError):
    """Unknown method, or a method whose capability is not offered (-32601)."""

    code = METHOD_NOT_FOUND


class InvalidParams(ProtocolError):
    """The method's params are wrong (-32602)."""

    code = INVALID_PARAMS


class UnknownComponent(InvalidParams):
    """An unknown tool, prompt, task or similar named in params (-32602)."""


class InvalidEnvelope(InvalidParams):
    """A 2026-07-28 request without the ``_meta`` every request of that era carries (-32602,
    HTTP 400 where a handler's -32602 is 200)."""

    http_status = 400


class UnknownTool(UnknownComponent):
    """A REST path naming no tool (-32602; HTTP 404)."""

    http_status = 404


# -- refusals at the HTTP edge: -32600 with the status RFC 9110 names -----------------------------
class Unauthorized(InvalidRequest):
    """No valid bearer token (HTTP 401 with ``WWW-Authenticate``; MCP Authorization)."""

    http_status = 401


class ForbiddenOrigin(InvalidRequest):
    """An ``Origin`` the server does not allow (HTTP 403; MCP Transports § Security Warning)."""

    http_status = 403


class SessionNotFound(InvalidRequest):
    """An ``Mcp-Session-Id`` naming no live session of the caller (HTTP 404: initialize again)."""

    http_status = 404


class RouteNotFound(MethodNotFound):
    """No route answers this path or method (HTTP 404)."""

    http_status = 404


class MethodNotAllowed(InvalidRequest):
    """The route does not take this HTTP method (HTTP 405 with ``Allow``)."""

    http_status = 405


class NotAcceptable(InvalidRequest):
    """``Accept`` excludes every media type the answer can have (HTTP 406)."""

    http_status = 406


class StreamConflict(InvalidRequest):
    """The session's stream is already open (HTTP 409)."""

    http_status = 409


class RequestTooLarge(InvalidRequest):
    """The body is over ``max_request_bytes`` (HTTP 413)."""

    http_status = 413


class UnsupportedMediaType(InvalidRequest):
    """The body is not JSON, or was sent compressed (HTTP 415)."""

    http_status = 415


class MisdirectedRequest(InvalidRequest):
    """A ``Host`` this server does not answer for (HTTP 421; DNS rebinding protection)."""

    http_status = 421


class InternalError(ProtocolError):
    """The server failed for a reason that is not the client's fault (-32603)."""

    code = INTERNAL_ERROR


class RequestCancelled(ProtocolError):
    """The client cancelled the request (``notifications/cancelled``; -32800, no HTTP status of its own).

    A cancelled request gets no response, except where an answer must come: a Streamable HTTP POST
    accepting only ``application/json`` is answered with this error (HTTP 200, the error in the body).
    """

    code = REQUEST_CANCELLED


class ServerBusy(ProtocolError):
    """A limit of the server is reached; the client should retry after ``retry_after`` seconds.

    Travels as -32000 with HTTP 503 and a ``Retry-After`` header (RFC 9110 § 10.2.3);
    ``data.retryAfter`` carries the same seconds for clients that only see the body.
    """

    code = SERVER_BUSY

    def __init__(self, message: str, *, retry_after: int, request_id: str | int | None = None) -> None:
        super().__init__(message, {"retryAfter": retry_after}, request_id=request_id)
        self.retry_after = retry_after


STOPPING_RETRY_SECONDS = 2
"""``Retry-After`` of a request the stopping server did not complete (a restart takes a moment)."""


class ServerStopping(ServerBusy):
    """The server is stopping: the request was refused, or was still running when the shutdown's
    grace ran out; it did not complete and may be sent again (-32000, HTTP 503 with ``Retry-After``
    where the status is not yet sent)."""

    def __init__(self, request_id: str | int | None = None) -> None:
        super().__init__("The server is stopping: this request was not completed; it may be retried "
                         "once the server is back (or on another of its processes)",
                         retry_after=STOPPING_RETRY_SECONDS, request_id=request_id)


class InsufficientScope(ProtocolError):
    """The caller's token lacks scopes the request needs (-32003, HTTP 403).

    ``scopes`` (also ``data.requiredScopes``) are all the scopes the request needs, the value
    of the ``scope`` a client asks for when it steps up (RFC 6750 § 3.1).
    """

    code = FORBIDDEN

    def __init__(self, message: str, *, scopes: list[str]) -> None:
        super().__init__(message, {"requiredScopes": list(scopes)})
        self.scopes = list(scopes)


class ResourceNotFound(ProtocolError):
    """No resource or template answers this URI (-32002; -32602 in 2026-07-28)."""

    code = RESOURCE_NOT_FOUND


class HeaderMismatch(ProtocolError):
    """A required 2026-07-28 HTTP header is missing or disagrees with the body (-32020)."""

    code = HEADER_MISMATCH


class MissingClientCapability(ProtocolError):
    """The request did not declare a client capability the server needs (-32021)."""

    code = MISSING_CLIENT_CAPABILITY


class UnsupportedProtocolVersion(ProtocolError):
    """The request names a protocol version this server does not speak (-32022)."""

    code = UNSUPPORTED_PROTOCOL_VERSION
