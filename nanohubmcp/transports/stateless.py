"""The stateless 2026-07-28 era on the same endpoint: detection and the checks of a request.

A request is *modern* when its ``_meta`` carries ``io.modelcontextprotocol/protocolVersion``
or its ``MCP-Protocol-Version`` header names 2026-07-28 or later (MCP 2026-07-28, Basic §
Versioning). Then there is no session: version and client capabilities come
from the request itself, every result carries ``resultType`` and the server's identity in
``_meta``, and the HTTP status follows the 2026 mapping.

Checks, in this order, each a 400 with a JSON-RPC error carrying the request's id:

1. ``_meta`` with a ``protocolVersion`` string and a ``clientCapabilities`` object (-32602);
2. the ``MCP-Protocol-Version`` header equals that version (-32020);
3. the version is one this server speaks (-32022, ``data: {supported, requested}``);
4. ``Mcp-Method`` equals the method; ``Mcp-Name`` equals ``params.name`` (``tools/call``,
   ``prompts/get``), ``params.uri`` (``resources/read``) or ``params.taskId`` (``tasks/*``),
   Base64-wrapped values decoded; ``Mcp-Param-*`` headers match the tool's marked
   arguments (-32020).

Then the dispatcher runs the method (unknown: 404 + -32601; the Streamable HTTP handler serves
it, ``StreamableHTTPHandler._serve_modern``). The reply is JSON, or an SSE
stream scoped to the request when the client accepts one and something (progress, a log
message, a subscription's notifications) goes out before the result. Closing that response
stream cancels the request: the function sees ``ctx.is_cancelled()``. Notifications get 202;
GET and DELETE get 405 (see ``streamable_http.py``).

Source: MCP 2026-07-28, Basic § Transports § Streamable HTTP (Request Metadata, Server
Validation, Cancellation); Basic § Versioning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..errors import HeaderMismatch
from ..protocol import jsonrpc
from ..protocol.message_values import show
from ..server.connection import is_modern
from ..server.stateless.headers import NAME_FIELDS, check_param_headers, decode_header_value, marks_for
from .headers import MCP_METHOD_HEADER, MCP_NAME_HEADER, MCP_PROTOCOL_VERSION_HEADER

if TYPE_CHECKING:
    from ..server.described import ToolListing



def is_modern_request(message: jsonrpc.Message | None, headers: Mapping[str, str]) -> bool:
    """True when the request belongs to the stateless era (:func:`~nanohubmcp.server.connection.is_modern`)."""
    return is_modern(message, headers.get(MCP_PROTOCOL_VERSION_HEADER))


def check_headers(message: jsonrpc.Message, headers: Mapping[str, str], tools: ToolListing) -> None:
    """Check a modern request's ``Mcp-Method``, ``Mcp-Name`` and ``Mcp-Param-*`` headers (checks 4 of
    the module docstring; the connection seam made checks 1-3 when it read the body,
    :meth:`~nanohubmcp.server.connection.Connection.receive`).

    Raises:
        HeaderMismatch: a header is missing or disagrees with the body.
    """
    method_header = (headers.get(MCP_METHOD_HEADER) or "").strip()
    if method_header != message.method:
        raise HeaderMismatch(f"Header mismatch: Mcp-Method is {method_header or 'missing'} but the body's "
                             f"method is {message.method}")
    params = message.params or {}
    field = NAME_FIELDS.get(message.method or "")
    if field is not None and isinstance(params.get(field), str):
        raw = headers.get(MCP_NAME_HEADER)
        if raw is None:
            raise HeaderMismatch(f"Header mismatch: Mcp-Name is missing; it must carry params.{field}")
        if decode_header_value(raw.strip(), MCP_NAME_HEADER) != params[field]:
            raise HeaderMismatch(f"Header mismatch: Mcp-Name is {show(raw.strip())} but params.{field} is "
                                 f"{show(params[field])}")
    if message.method == "tools/call" and isinstance(params.get("name"), str):
        tool = tools.get(params["name"])
        arguments = params.get("arguments")
        if tool is not None and (arguments is None or isinstance(arguments, dict)):
            check_param_headers(marks_for(tool), arguments or {}, headers)
