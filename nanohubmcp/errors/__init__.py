"""The nanohubmcp exception tree, and the one place exceptions become wire errors.

Every exception the package raises on purpose derives from :class:`NanohubMCPError`::

    NanohubMCPError
     ├── RegistrationError          a decorator was misused (raised at decoration time)
     ├── ConfigurationError         a server option or environment is unusable
     │    └── UsageError            a command-line argument is malformed (the command exits 2)
     ├── ToolError                  a tool failed; becomes ``isError: true`` content
     │    ├── InvalidArguments      arguments broke the tool's input schema (SEP-1303)
     │    ├── JobLimitReached       the job store is full; no new job
     │    ├── ToolBusy              the tool could not start (a notebook kernel runs a cell); REST 503
     │    ├── ToolTimeout           the call ran past a time limit (tool_timeout, a tool's own); REST 504
     │    └── ResultTooLarge        the result is over the server's max_result_bytes; not sent
     ├── ProtocolError              a JSON-RPC error object ``{code, message, data?}``; -32004 without ``code=``
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
     │    ├── RequestCancelled      -32800 (a cancelled request that must still be answered)
     │    ├── ServerBusy            -32000, HTTP 503 with Retry-After (a limit is reached)
     │    │    └── ServerStopping    the server is stopping (the request did not complete; retry)
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
``server/asks/input_requests.py``) derives from ``BaseException`` like ``asyncio.CancelledError``, so a
tool's own ``except Exception`` cannot swallow it; it is control flow, never reported as an error.

Transports never build JSON-RPC error objects by hand: they raise or pass one of these
exceptions to :func:`error_response` (the whole error message) or :func:`to_error_object`
(its ``error`` member). The HTTP status comes from one map: :func:`http_status_for` for an error
the core answered (per route: the handshake era, the stateless era, REST), :func:`http_status_of`
for a refusal a transport answers itself (the exception's own ``http_status``, else its code's).
The text a client gets for an exception a tool raised is :func:`message_of`'s, on every route.

Every exception and function of the parts is imported from here (``from nanohubmcp.errors import ToolError``,
``from nanohubmcp.errors import notified_text``); the parts live in
``errors/codes.py`` (the JSON-RPC codes), ``errors/base.py`` (the root and the errors that are not
JSON-RPC objects), ``errors/protocol.py`` (:class:`ProtocolError` and its subclasses) and
``errors/wire.py`` (the map to the wire and to HTTP statuses), with ``errors/sent_text.py`` (how much of a
message's text, and of an error's message and data, a client is sent: the official ``mcp`` client refuses an SSE
event over 1 MiB). This module only gathers them.

Source: MCP 2025-11-25, Basic § JSON-RPC error codes; MCP 2026-07-28, Basic § Error codes.
"""

from __future__ import annotations

from .base import (
    RETRY_AFTER_META,
    ClientRequestError,
    ClientRequestTimeout,
    ConfigurationError,
    InvalidArguments,
    JobLimitReached,
    NanohubMCPError,
    RegistrationError,
    RegistrationWarning,
    ResultTooLarge,
    ToolBusy,
    ToolError,
    ToolTimeout,
    UsageError,
    message_of,
    text_of,
)
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
from .protocol import (
    ForbiddenOrigin,
    HeaderMismatch,
    InsufficientScope,
    InternalError,
    InvalidEnvelope,
    InvalidParams,
    InvalidRequest,
    MethodNotAllowed,
    MethodNotFound,
    MisdirectedRequest,
    MissingClientCapability,
    NotAcceptable,
    ParseError,
    ProtocolError,
    RequestCancelled,
    RequestTooLarge,
    ResourceNotFound,
    RouteNotFound,
    ServerBusy,
    ServerStopping,
    SessionNotFound,
    StreamConflict,
    Unauthorized,
    UnknownComponent,
    UnknownTool,
    UnsupportedMediaType,
    UnsupportedProtocolVersion,
)
from .sent_text import MAX_NOTIFIED_CHARS, measure_data_with, notified_text, sent_error
from .wire import (
    HANDSHAKE_ROUTE,
    INTERNAL_MESSAGE,
    MODERN_ROUTE,
    REST_ROUTE,
    error_response,
    http_status_for,
    http_status_of,
    to_error_object,
)

__all__ = [
    "FORBIDDEN",
    "HANDSHAKE_ROUTE",
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INTERNAL_MESSAGE",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_NOTIFIED_CHARS",
    "METHOD_NOT_FOUND",
    "MISSING_CLIENT_CAPABILITY",
    "MODERN_ROUTE",
    "PARSE_ERROR",
    "REFUSED",
    "REQUEST_CANCELLED",
    "RESOURCE_NOT_FOUND",
    "REST_ROUTE",
    "RETRY_AFTER_META",
    "SERVER_BUSY",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "ClientRequestError",
    "ClientRequestTimeout",
    "ConfigurationError",
    "ForbiddenOrigin",
    "HeaderMismatch",
    "InsufficientScope",
    "InternalError",
    "InvalidArguments",
    "InvalidEnvelope",
    "InvalidParams",
    "InvalidRequest",
    "JobLimitReached",
    "MethodNotAllowed",
    "MethodNotFound",
    "MisdirectedRequest",
    "MissingClientCapability",
    "NanohubMCPError",
    "NotAcceptable",
    "ParseError",
    "ProtocolError",
    "RegistrationError",
    "RegistrationWarning",
    "RequestCancelled",
    "RequestTooLarge",
    "ResourceNotFound",
    "ResultTooLarge",
    "RouteNotFound",
    "ServerBusy",
    "ServerStopping",
    "SessionNotFound",
    "StreamConflict",
    "ToolBusy",
    "ToolError",
    "ToolTimeout",
    "Unauthorized",
    "UnknownComponent",
    "UnknownTool",
    "UnsupportedMediaType",
    "UnsupportedProtocolVersion",
    "UsageError",
    "error_response",
    "http_status_for",
    "http_status_of",
    "measure_data_with",
    "message_of",
    "notified_text",
    "sent_error",
    "text_of",
    "to_error_object",
]

# The classes keep the module users import them from: tracebacks, pickles of job results and the
# ``error.type`` of traces name ``nanohubmcp.errors.ToolError``, as before the tree was split in parts.
for _name in __all__:
    _value = globals()[_name]
    if isinstance(_value, type):
        _value.__module__ = __name__
del _name, _value
