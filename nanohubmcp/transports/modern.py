"""The stateless 2026-07-28 era on the same endpoint: detection and per-request serving.

A request is *modern* when its ``_meta`` carries ``io.modelcontextprotocol/protocolVersion``
or its ``MCP-Protocol-Version`` header names 2026-07-28 or later (``design/rulings.md`` §
Protocol, era of a request). Then there is no session: version and client capabilities come
from the request itself, every result carries ``resultType``, and the HTTP status follows the
2026 mapping (400 for -32602/-32020/-32021/-32022 at the envelope, 404 for an unknown method).

Source: MCP 2026-07-28, Basic § Transports § Streamable HTTP; Basic § Versioning.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import (
    INVALID_PARAMS,
    HeaderMismatch,
    InvalidParams,
    ProtocolError,
    UnsupportedProtocolVersion,
    http_status_for,
)
from ..protocol import jsonrpc, versions
from ..server.request import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, RequestContext
from ..server.streams import OutboundStream
from .base import MCP_METHOD_HEADER, MCP_NAME_HEADER, MCP_PROTOCOL_VERSION_HEADER

if TYPE_CHECKING:
    from .streamable_http import StreamableHTTPHandler

_NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def is_modern_request(message: jsonrpc.Message | None, headers: Mapping[str, str]) -> bool:
    """True when the request belongs to the stateless era."""
    header = (headers.get(MCP_PROTOCOL_VERSION_HEADER) or "").strip()
    if header and header >= versions.V2026_07_28:
        return True
    return message is not None and META_PROTOCOL_VERSION in message.meta


class ModernRequest:
    """Serves one 2026-07-28 POST."""

    def __init__(self, handler: StreamableHTTPHandler, message: jsonrpc.Message) -> None:
        self.handler = handler
        self.message = message

    def _fail(self, exc: ProtocolError) -> None:
        error = exc.to_error()
        status = http_status_for(error, modern=True)
        if error["code"] == INVALID_PARAMS and getattr(exc, "envelope", False):
            status = 400
        self.handler.send_error_json(status, jsonrpc.error(self.message.id, error))

    def _check(self) -> tuple[str, dict[str, Any]]:
        meta = self.message.meta
        version = meta.get(META_PROTOCOL_VERSION)
        caps = meta.get(META_CLIENT_CAPABILITIES)
        if not isinstance(version, str) or not isinstance(caps, dict):
            exc = InvalidParams(
                "Invalid params: 2026-07-28 requests must carry _meta with "
                f"'{META_PROTOCOL_VERSION}' (a string) and '{META_CLIENT_CAPABILITIES}' (an object)")
            exc.envelope = True  # type: ignore[attr-defined]
            raise exc
        if version not in versions.SUPPORTED_VERSIONS or not versions.is_modern(version):
            raise UnsupportedProtocolVersion(
                f"Unsupported protocol version {version!r}",
                {"supported": list(versions.SUPPORTED_VERSIONS), "requested": version})
        headers = self.handler.request.headers
        header_version = (headers.get(MCP_PROTOCOL_VERSION_HEADER) or "").strip()
        if header_version != version:
            raise HeaderMismatch(
                f"Header mismatch: MCP-Protocol-Version is {header_version or 'missing'} but _meta says {version}")
        if self.message.kind == jsonrpc.REQUEST:
            method_header = (headers.get(MCP_METHOD_HEADER) or "").strip()
            if method_header != self.message.method:
                raise HeaderMismatch(
                    f"Header mismatch: Mcp-Method is {method_header or 'missing'} but the body's method is "
                    f"{self.message.method}")
            key = _NAMED.get(self.message.method or "")
            if key is not None:
                name = (self.message.params or {}).get(key)
                name_header = (headers.get(MCP_NAME_HEADER) or "").strip()
                if isinstance(name, str) and name_header != name:
                    raise HeaderMismatch(
                        f"Header mismatch: Mcp-Name is {name_header or 'missing'} but params.{key} is {name}")
        return version, caps

    async def serve(self) -> None:
        """Validate, dispatch, and answer (JSON, or SSE when related messages come first)."""
        try:
            version, caps = self._check()
        except ProtocolError as exc:
            self._fail(exc)
            return
        handler = self.handler
        loop = asyncio.get_running_loop()
        if self.message.kind != jsonrpc.REQUEST:
            handler.send_empty(202)
            return
        from .streamable_http import ResponseChannel, wants_sse

        stream = None
        if wants_sse(handler.request.headers.get("Accept")):
            stream = OutboundStream("m", resumable=False)
        request = RequestContext(self.message, version=version, loop=loop, stream=stream,
                                 client_capabilities=caps)
        handler.channel = ResponseChannel(handler, stream, priming=False)
        response = await handler.core.dispatcher.handle(request)
        assert response is not None
        if "result" in response:
            meta = response["result"].setdefault("_meta", {})
            meta.setdefault("io.modelcontextprotocol/serverInfo", handler.core.server_info())
            status = 200
        else:
            status = http_status_for(response["error"], modern=True)
        handler.channel.finish(response, status)
