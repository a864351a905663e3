"""The 2026-07-28 HTTP headers the bridge adds to a request for its client, which knows nothing of HTTP.

Owns :func:`modern_headers` (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name`` and the
``Mcp-Param-*`` headers of a ``tools/call``, from the message and the tools' header marks) and
:func:`header_value` (SEP-2243's encoding of a value that is not plain ASCII). Which arguments a
tool marks is :func:`nanohubmcp.server.stateless.headers.header_marks`'s; when a request is of that
era, and the session's own headers, the session's.

Source: MCP 2026-07-28, Transports § Streamable HTTP (request headers).
"""

from __future__ import annotations

import base64
from typing import Any

from ...server.stateless.headers import NAME_FIELDS
from ...server.wire.request import META_PROTOCOL_VERSION
from ..headers import MCP_METHOD_HEADER, MCP_NAME_HEADER, MCP_PROTOCOL_VERSION_HEADER

__all__ = ["Mark", "header_value", "modern_headers"]

Mark = tuple[tuple[str, ...], str, str]
"""One argument a tool sends as a header: its path in the arguments, the header's token, its kind."""
_HEADER_SAFE = frozenset(chr(c) for c in range(0x21, 0x7F)) | {" "}


def modern_headers(message: Any, marks: dict[str, list[Mark]]) -> dict[str, str] | None:
    """The 2026-07-28 headers of ``message`` (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``,
    ``Mcp-Param-*`` for the arguments ``marks`` names per tool), or None for a message of the
    handshake era (no protocol version in its ``_meta``)."""
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    if not isinstance(version, str):
        return None
    method = str(message.get("method", ""))
    headers = {MCP_PROTOCOL_VERSION_HEADER: version, MCP_METHOD_HEADER: method}
    named = params.get(NAME_FIELDS.get(method, ""))  # type: ignore[union-attr]
    if isinstance(named, str):
        headers[MCP_NAME_HEADER] = header_value(named)
    arguments = params.get("arguments")  # type: ignore[union-attr]
    if method == "tools/call" and isinstance(arguments, dict):
        for path, token, _kind in marks.get(str(params.get("name")), []):  # type: ignore[union-attr]
            value: Any = arguments
            for part in path:
                value = value.get(part) if isinstance(value, dict) else None
            if value is not None:
                text = ("true" if value else "false") if isinstance(value, bool) else str(value)
                headers[f"Mcp-Param-{token}"] = header_value(text)
    return headers


def header_value(text: str) -> str:
    """``text`` as an HTTP header value: itself when plain ASCII, else ``=?base64?…?=`` (SEP-2243)."""
    if text and all(ch in _HEADER_SAFE for ch in text) and text == text.strip():
        return text
    return f"=?base64?{base64.b64encode(text.encode()).decode()}?="
