"""The HTTP headers of MCP's HTTP binding: their names, and how a request's media types are read.

Owns the header names both sides use — the server's handlers (:mod:`.base`, :mod:`.streamable_http`,
:mod:`.stateless`) and the stdio↔HTTP bridge, a client (:mod:`.bridge`) — the CORS lists built from
them, and the readings of ``Content-Type``, ``Content-Encoding`` and ``Accept`` (:func:`json_body_type`,
:func:`content_coding`, :func:`accepts`, :func:`wants_sse`). Imports nothing but the standard library
and keeps no state, so the bridge names a header without loading the server's request handler. Does not
own what a header's value means for a request (the era, the session, the version: ``server/intake``;
``Mcp-Param-*``: ``server/stateless/headers``), the verdicts a POST to the MCP endpoint keeps per pair
of values (:func:`.streamable_http.post_headers`), nor the headers a reply sets
(:class:`.base.BaseHandler`).

Source: MCP 2025-11-25, Basic § Transports § Streamable HTTP; RFC 9110 § 8.3 (Content-Type),
§ 8.4 (Content-Encoding), § 12.5.1 (Accept).
"""

from __future__ import annotations

MCP_SESSION_ID_HEADER = "Mcp-Session-Id"
MCP_PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version"
MCP_METHOD_HEADER = "Mcp-Method"
MCP_NAME_HEADER = "Mcp-Name"
LAST_EVENT_ID_HEADER = "Last-Event-ID"

ALLOW_HEADERS = ", ".join((
    "Content-Type", "Accept", "Authorization", MCP_SESSION_ID_HEADER, MCP_PROTOCOL_VERSION_HEADER,
    MCP_METHOD_HEADER, MCP_NAME_HEADER, LAST_EVENT_ID_HEADER, "traceparent", "tracestate", "baggage",
))
"""``Access-Control-Allow-Headers`` of a CORS preflight (before the ``Mcp-Param-*`` it asked for); the W3C trace
context headers are among them, as the server reads them when ``params._meta`` has none."""
EXPOSE_HEADERS = ", ".join((MCP_SESSION_ID_HEADER, MCP_PROTOCOL_VERSION_HEADER))
"""``Access-Control-Expose-Headers``: the reply headers a browser client may read."""
JSON_TYPE = "application/json"


def json_body_type(content_type: str | None) -> bool:
    """True for an absent ``Content-Type`` or a JSON one (``application/json; charset=utf-8``)."""
    if not content_type:
        return True
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def content_coding(header: str | None) -> str | None:
    """The content codings a request's ``Content-Encoding`` says were applied to its body, other than
    ``identity`` (``"gzip"``, ``"br"``, ``"deflate, gzip"``), or None: the body is as it was written."""
    if not header:
        return None
    codings = [coding for part in header.split(",") if (coding := part.strip().lower()) and coding != "identity"]
    return ", ".join(codings) or None


def accepts(header: str | None, media: str) -> bool:
    """True when an ``Accept`` header admits ``media`` (absent header admits everything)."""
    if not header:
        return True
    for part in header.split(","):
        kind = part.split(";", 1)[0].strip().lower()
        if kind in (media, "*/*") or (kind.endswith("/*") and media.startswith(kind[:-1])):
            return True
    return False


def wants_sse(header: str | None) -> bool:
    """True when the client named ``text/event-stream`` itself (no Accept, or */*, gets JSON)."""
    return header is not None and "text/event-stream" in header.lower()


SESSION_QUERY = "session_id"
"""The query parameter naming a legacy HTTP+SSE session (``POST /messages/?session_id=<id>``)."""


def session_query(arguments: dict[str, list[bytes]]) -> str | None:
    """The last ``session_id`` of a request's query ``arguments`` (Tornado's ``query_arguments``), None
    without one. Bytes that are not UTF-8 (``%ff%fe``) name no session the server made (its ids are
    ASCII): they are read with a stand-in for each bad byte, an unknown session like any other — where
    Tornado's ``get_query_argument`` raised its own 400 (not a JSON-RPC error), again inside the access
    log's line."""
    values = arguments.get(SESSION_QUERY)
    return values[-1].decode("utf-8", "replace") if values else None
