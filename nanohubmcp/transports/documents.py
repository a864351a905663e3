"""Read-only documents: ``GET /`` (server info), ``GET /.well-known/mcp.json`` (nanoHUB's
discovery document) and ``GET /openapi.json``, each answering ``HEAD`` too; also ``DELETE /`` and
``POST /`` (JSON-RPC).

``/.well-known/mcp.json`` is not a document the MCP specification defines: we keep the shape
nanoHUB clients read, with the public URLs (behind the weber proxy, the URLs clients use).
Each route's handler is imported with its first request (``routes.HandlerAtFirstUse``); the 404 of any other
path is ``not_found.py``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import NanohubMCPError, RouteNotFound
from ..protocol import versions
from . import auth
from .plain_errors import PlainErrorsHandler, plain_error
from .streamable_http import StreamableHTTPHandler

if TYPE_CHECKING:
    from ..server.described import Described


def endpoints(base: str) -> dict[str, str]:
    """Public URLs of every transport, from the public base (with trailing slash)."""
    return {
        "sse": f"{base}sse",
        "mcp": f"{base}mcp",
        "openapi": f"{base}openapi.json",
        "discovery": f"{base}.well-known/mcp.json",
        "tools": f"{base}tools/<name>",
    }


def info_document(server: Described, base: str) -> dict[str, Any]:
    """The ``GET /`` document: name, version, status, counts and endpoints."""
    return {
        "name": server.name,
        "version": server.version,
        "status": "running",
        "tools": len(server.registry.tools),
        "resources": len(server.registry.resources),
        "resourceTemplates": len(server.registry.templates),
        "prompts": len(server.registry.prompts),
        "endpoints": endpoints(base),
    }


def discovery_document(server: Described, base: str) -> dict[str, Any]:
    """The ``/.well-known/mcp.json`` document."""
    return {
        "mcpVersion": versions.LATEST_HANDSHAKE,
        "supportedVersions": list(versions.SUPPORTED_VERSIONS),
        "serverInfo": server.server_info(),
        "capabilities": server.capabilities(versions.LATEST_HANDSHAKE),
        "transports": [
            {"type": "streamable-http", "endpoint": f"{base}mcp"},
            {"type": "sse", "endpoint": f"{base}sse"},
        ],
    }


class RootHandler(StreamableHTTPHandler):
    """``/``: GET (and HEAD) is the info document; POST is JSON-RPC (Streamable HTTP rules); DELETE ends a
    session."""

    root = True

    def error_body(self, exc: NanohubMCPError, request_id: Any = None) -> Any:
        """A refused ``GET`` (or ``HEAD``) of the info document answers as the documents do (``{"error":
        message}``, as its 404 and 405); a refused POST or DELETE is a JSON-RPC error response."""
        if self.request.method in ("GET", "HEAD"):
            return plain_error(exc)
        return super().error_body(exc, request_id)

    async def get(self) -> None:
        if not self._finished:
            self.send_json(200, info_document(self.connection.described, self.public_base()))

    head = get  # the GET's status and headers, no body (RFC 9110 § 9.3.2); it was 405


class DiscoveryHandler(PlainErrorsHandler):
    """``GET /.well-known/mcp.json`` (and ``HEAD``)."""

    def get(self) -> None:
        if not self._finished:
            self.send_json(200, discovery_document(self.connection.described, self.public_base()))

    head = get  # the GET's status and headers, no body (RFC 9110 § 9.3.2)


class OpenAPIHandler(PlainErrorsHandler):
    """``GET /openapi.json`` (and ``HEAD``)."""

    def get(self) -> None:
        if not self._finished:
            from .openapi import build_openapi  # (loaded with the first /openapi.json asked for)

            self.send_json(200, build_openapi(self.connection.described, self.checked_base(), auth=self.config.auth,
                                                middleware=self.connection.middleware_added))

    head = get  # the GET's status and headers, no body (RFC 9110 § 9.3.2)


class ProtectedResourceHandler(PlainErrorsHandler):
    """``GET /.well-known/oauth-protected-resource[/<path>]``: RFC 9728 metadata (no token needed).

    404 when the server has no authorization configured (there is no protected resource), and for a path that
    names none of the resources served (:func:`.auth.served_resource`: the root or path prefix, ``/mcp``, ``/sse``).
    """

    public = True

    def get(self, suffix: str | None = None) -> None:
        if self._finished:
            return
        if self.config.auth is None:
            self.fail(RouteNotFound("This server has no authorization configured"))
            return
        base = self.public_base()
        resource = auth.served_resource(suffix or "", base, self.config.path_prefix)
        if resource is None:
            self.fail(RouteNotFound("No protected resource at this path: this server's metadata is at "
                                    f"{auth.metadata_url(base)} (and the same with /mcp or /sse after it)"))
            return
        self.set_header("Cache-Control", self.cache_control())
        self.send_json(200, auth.metadata_document(self.config.auth, base, resource, self.connection.described.name))

    head = get  # the GET's status and headers, no body (RFC 9110 § 9.3.2)
