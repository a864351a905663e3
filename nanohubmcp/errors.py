"""The nanohubmcp exception tree, and the one place exceptions become wire errors.

Every exception the package raises on purpose derives from :class:`NanohubMCPError`::

    NanohubMCPError
     ├── RegistrationError          a decorator was misused (raised at decoration time)
     ├── ConfigurationError         a server option or environment is unusable
     ├── ToolError                  a tool failed; becomes ``isError: true`` content
     │    ├── InvalidArguments      arguments broke the tool's input schema (SEP-1303)
     │    ├── JobLimitReached       the job store is full; no new job
     │    └── ToolBusy              the tool could not start (a notebook kernel runs a cell); REST 503
     ├── ProtocolError              a JSON-RPC error object ``{code, message, data?}``
     │    ├── ParseError            -32700
     │    ├── InvalidRequest        -32600
     │    │    └── Unauthorized, ForbiddenOrigin, SessionNotFound, MethodNotAllowed, NotAcceptable,
     │    │        StreamConflict, RequestTooLarge, UnsupportedMediaType, MisdirectedRequest:
     │    │        refusals at the HTTP edge, each naming its status (401 … 421)
     │    ├── MethodNotFound        -32601
     │    │    └── RouteNotFound     no route for this path (HTTP 404)
     │    ├── InvalidParams         -32602
     │    │    ├── UnknownComponent  unknown tool / prompt / resource (-32602 or -32002)
     │    │    │    └── UnknownTool  a REST path naming no tool (HTTP 404)
     │    │    └── InvalidEnvelope   a 2026-07-28 request without its ``_meta`` (-32602, HTTP 400)
     │    ├── InternalError         -32603
     │    ├── ServerBusy            -32000, HTTP 503 with Retry-After (a limit is reached)
     │    ├── InsufficientScope     -32003, HTTP 403 (the token lacks a scope the request needs)
     │    ├── ResourceNotFound      -32002 (handshake era; -32602 in 2026-07-28)
     │    ├── HeaderMismatch        -32020 (2026-07-28)
     │    ├── MissingClientCapability -32021 (2026-07-28)
     │    └── UnsupportedProtocolVersion -32022 (2026-07-28)
     └── ClientRequestError         a server→client request failed (timeout, refusal, error)
          └── ClientRequestTimeout

Registration problems that do not stop a tool from working (no description, a parameter without
a type, a name that replaces a different function) are reported as :class:`RegistrationWarning` (shown once).

One signal stands outside the tree on purpose: ``InputRequired`` (2026-07-28 multi round-trip,
``server/modern/mrtr.py``) derives from ``BaseException`` like ``asyncio.CancelledError``, so a
tool's own ``except Exception`` cannot swallow it; it is control flow, never reported as an error.

Transports never build JSON-RPC error objects by hand: they raise or pass one of these
exceptions to :func:`error_response` (the whole error message) or :func:`to_error_object`
(its ``error`` member). The HTTP status comes from one map: :func:`http_status_for` for an error
the core answered (per route: the handshake era, the stateless era, REST), :func:`http_status_of`
for a refusal a transport answers itself (the exception's own ``http_status``, else its code's).

Source: MCP 2025-11-25, Basic § JSON-RPC error codes; MCP 2026-07-28, Basic § Error codes.
"""

from __future__ import annotations

from typing import Any

PARSE_ERROR = -32700
"""Invalid JSON was received (JSON-RPC 2.0 § 5.1)."""
INVALID_REQUEST = -32600
"""The JSON sent is not a valid request object."""
METHOD_NOT_FOUND = -32601
"""The method does not exist or is not available (also: capability not advertised)."""
INVALID_PARAMS = -32602
"""Invalid method parameters: unknown tool/prompt, bad cursor, bad log level, bad arguments."""
INTERNAL_ERROR = -32603
"""Internal JSON-RPC error."""
RESOURCE_NOT_FOUND = -32002
"""Resource not found (MCP ≤ 2025-11-25, Server § Resources § Error handling)."""
SERVER_BUSY = -32000
"""A server limit is reached (sessions); retry later (implementation-defined, JSON-RPC 2.0 § 5.1)."""
HEADER_MISMATCH = -32020
"""A required HTTP header is missing or disagrees with the body (MCP 2026-07-28)."""
MISSING_CLIENT_CAPABILITY = -32021
"""The request lacks a client capability the server needs (MCP 2026-07-28)."""
FORBIDDEN = -32003
"""The caller's token lacks a scope the request needs (implementation-defined; HTTP 403 with
``WWW-Authenticate: Bearer error="insufficient_scope"``, MCP 2025-06-18+ Authorization)."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
"""The requested protocol version is not supported (MCP 2026-07-28)."""


class NanohubMCPError(Exception):
    """Root of every exception nanohubmcp raises on purpose."""


class RegistrationError(NanohubMCPError, ValueError):
    """A tool, resource or prompt could not be registered; the message names it.

    Args:
        message: what is wrong and how to fix it, in Python terms (``name='...'``).
        option: the keyword argument of the fix (e.g. ``"name"``), so a front end with options
            of its own (the notebook's ``--name``) can say it in its terms; None when none.
    """

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


class RegistrationWarning(UserWarning):
    """A tool was registered, but something about it will likely confuse a model or a user."""


class ConfigurationError(NanohubMCPError, ValueError):
    """A server option, port, or environment setting cannot be used as given."""


class ToolError(NanohubMCPError):
    """Raise inside a tool to report a failure the model should see.

    The message becomes the text of an ``isError: true`` result (MCP 2025-11-25,
    Server § Tools § Error handling). Any other exception a tool raises is reported the
    same way, with ``str(exc)`` as the text.
    """


class JobLimitReached(ToolError):
    """The job store is full (in total or for this caller): no new job is accepted.

    An ``@async_tool`` call answers it as an ``isError`` result, a task-augmented call as
    JSON-RPC -32603, REST as HTTP 429; the message names the limit and the option raising it.
    """


class ToolBusy(ToolError):
    """The tool could not start: what it runs on is busy (a notebook kernel running a cell).

    An ``isError`` result on every MCP route, whose ``_meta`` carries ``{RETRY_AFTER_META:
    seconds}``; REST answers HTTP 503 with ``Retry-After`` (RFC 9110 § 10.2.3).

    Attributes:
        retry_after: seconds after which a retry may find it free.
    """

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


RETRY_AFTER_META = "nanohubmcp/retryAfter"
"""The ``_meta`` key of a tool result saying in how many seconds to retry (see :class:`ToolBusy`)."""


class InvalidArguments(ToolError):
    """The call's arguments do not satisfy the tool's input schema.

    Reported as ``isError: true`` from 2025-11-25 on (SEP-1303) and as JSON-RPC -32602
    before that, unless the server's ``argument_errors`` option says otherwise.

    Attributes:
        errors: one human-readable message per violation, each naming the JSON path.
    """

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or [message]


class ProtocolError(NanohubMCPError):
    """An error that travels as a JSON-RPC error object.

    Args:
        message: the ``message`` member; say what was wrong and how to fix it.
        data: optional ``data`` member (JSON-serialisable).
        code: the ``code`` member, for a code of the application's own (-32000 to -32099 are
            free for servers); each subclass has its own default.
        request_id: the id of the request refused, when it could be read (the error response
            carries it).
    """

    code: int = INTERNAL_ERROR
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
        """Return the JSON-RPC ``error`` member ``{code, message, data?}``."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


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
    """The body is not JSON (HTTP 415)."""

    http_status = 415


class MisdirectedRequest(InvalidRequest):
    """A ``Host`` this server does not answer for (HTTP 421; DNS rebinding protection)."""

    http_status = 421


class InternalError(ProtocolError):
    """The server failed for a reason that is not the client's fault (-32603)."""

    code = INTERNAL_ERROR


class ServerBusy(ProtocolError):
    """A limit of the server is reached; the client should retry after ``retry_after`` seconds.

    Travels as -32000 with HTTP 503 and a ``Retry-After`` header (RFC 9110 § 10.2.3);
    ``data.retryAfter`` carries the same seconds for clients that only see the body.
    """

    code = SERVER_BUSY

    def __init__(self, message: str, *, retry_after: int, request_id: str | int | None = None) -> None:
        super().__init__(message, {"retryAfter": retry_after}, request_id=request_id)
        self.retry_after = retry_after


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


class ClientRequestError(NanohubMCPError, RuntimeError):
    """A server→client request (elicitation, sampling, roots) failed or was refused."""


class ClientRequestTimeout(ClientRequestError, TimeoutError):
    """The client did not answer a server→client request in time."""

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
_STATUS_BY_ROUTE: dict[str, tuple[dict[int, int], int]] = {
    HANDSHAKE_ROUTE: ({}, 200),
    MODERN_ROUTE: ({METHOD_NOT_FOUND: 404}, 200),
    REST_ROUTE: ({INVALID_PARAMS: 400, RESOURCE_NOT_FOUND: 404}, 500),
}
"""Per route: the statuses of its own codes, and the status of every other code."""


def http_status_for(error: dict[str, Any], route: str = HANDSHAKE_ROUTE) -> int:
    """Return the HTTP status for a JSON-RPC error object on ``route``: the one such map.

    On every route: parse and envelope errors and the 2026-07-28 codes are 400, a reached limit
    503 (with ``Retry-After``), a missing scope 403. Handshake-era errors of a well-formed
    request travel with 200; in the 2026-07-28 era an unknown method is 404 (and a request
    missing its ``_meta``, :class:`InvalidEnvelope`, 400). Over REST invalid arguments are 400,
    an unknown resource 404, and any other failure 500.

    Source: MCP 2026-07-28, Transports § Streamable HTTP § Status codes.
    """
    code = error.get("code")
    status = _STATUS_EVERY_ROUTE.get(code)  # type: ignore[arg-type]
    if status is not None:
        return status
    own, otherwise = _STATUS_BY_ROUTE[route]
    return own.get(code, otherwise)  # type: ignore[arg-type]


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
    return {"code": INTERNAL_ERROR, "message": "Internal error; see the server log"}


def error_response(exc: BaseException, request_id: object = None) -> dict[str, Any]:
    """The JSON-RPC error response for ``exc`` (``id`` null when the request's id is unknown).

    Source: JSON-RPC 2.0 § 5 (Response object), § 5.1 (Error object).
    """
    return {"jsonrpc": "2.0", "id": request_id, "error": to_error_object(exc)}
