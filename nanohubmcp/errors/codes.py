"""The JSON-RPC error codes the package sends, each with what it means and where it is defined.

Owns the numbers only; the exceptions carrying them are :mod:`.protocol`'s, the HTTP status each
travels with is :mod:`.wire`'s. Importable as ``nanohubmcp.errors.PARSE_ERROR`` etc.

Source: JSON-RPC 2.0 § 5.1; MCP 2025-11-25, Basic § JSON-RPC error codes; MCP 2026-07-28, Basic § Error codes.
"""

from __future__ import annotations

__all__ = [
    "FORBIDDEN",
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "MISSING_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "REFUSED",
    "REQUEST_CANCELLED",
    "RESOURCE_NOT_FOUND",
    "SERVER_BUSY",
    "UNSUPPORTED_PROTOCOL_VERSION",
]

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
REFUSED = -32004
"""The server's application refused the request on purpose: the code of a bare
``ProtocolError(message)`` (a middleware's or a handler's refusal without ``code=``;
implementation-defined, JSON-RPC 2.0 § 5.1). HTTP 403 over REST, 200 with the error on the
JSON-RPC routes, as any code of the application's own; -32001 is left alone: the official SDKs
use it for a request that timed out."""
FORBIDDEN = -32003
"""The caller's token lacks a scope the request needs (implementation-defined; HTTP 403 with
``WWW-Authenticate: Bearer error="insufficient_scope"``, MCP 2025-06-18+ Authorization)."""
REQUEST_CANCELLED = -32800
"""The client cancelled the request (``notifications/cancelled``): the answer of a Streamable HTTP
POST that accepts only ``application/json``, which must carry a JSON body, where a cancelled request
otherwise gets no response (the code JSON-RPC implementations use for it, e.g. the Language Server
Protocol's ``RequestCancelled``)."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
"""The requested protocol version is not supported (MCP 2026-07-28)."""
