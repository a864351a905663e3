"""Read-only documents: ``GET /`` (server info), ``GET /.well-known/mcp.json`` (nanoHUB's
discovery document) and ``GET /openapi.json``, each answering ``HEAD`` too; also ``DELETE /`` and
``POST /`` (JSON-RPC).

``/.well-known/mcp.json`` is not a document the MCP specification defines: we keep the shape
nanoHUB clients read, with the public URLs (behind the weber proxy, the URLs clients use).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import NanohubMCPError, RouteNotFound, ServerBusy
from ..protocol import versions
from . import auth
from .base import BaseHandler, PlainErrors, plain_error
from .streamable_http import StreamableHTTPHandler
from .url_path import spellings

if TYPE_CHECKING:
    from ..server.core import ServerCore


def endpoints(base: str) -> dict[str, str]:
    """Public URLs of every transport, from the public base (with trailing slash)."""
    return {
        "sse": f"{base}sse",
        "mcp": f"{base}mcp",
        "openapi": f"{base}openapi.json",
        "discovery": f"{base}.well-known/mcp.json",
        "tools": f"{base}tools/<name>",
    }


def info_document(core: ServerCore, base: str) -> dict[str, Any]:
    """The ``GET /`` document: name, version, status, counts and endpoints."""
    return {
        "name": core.name,
        "version": core.version,
        "status": "running",
        "tools": len(core.registry.tools),
        "resources": len(core.registry.resources),
        "resourceTemplates": len(core.registry.templates),
        "prompts": len(core.registry.prompts),
        "endpoints": endpoints(base),
    }


def discovery_document(core: ServerCore, base: str) -> dict[str, Any]:
    """The ``/.well-known/mcp.json`` document."""
    return {
        "mcpVersion": versions.LATEST_HANDSHAKE,
        "supportedVersions": list(versions.SUPPORTED_VERSIONS),
        "serverInfo": core.server_info(),
        "capabilities": core.capabilities(versions.LATEST_HANDSHAKE),
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
            self.send_json(200, info_document(self.core, self.public_base()))

    head = get  # the GET's status and headers, no body (RFC 9110 § 9.3.2); it was 405


class DiscoveryHandler(PlainErrors, BaseHandler):
    """``GET /.well-known/mcp.json`` (and ``HEAD``)."""

    def get(self) -> None:
        if not self._finished:
            self.send_json(200, discovery_document(self.core, self.public_base()))

    head = get  # the GET's status and headers, no body (RFC 9110 § 9.3.2)


class OpenAPIHandler(PlainErrors, BaseHandler):
    """``GET /openapi.json`` (and ``HEAD``)."""

    def get(self) -> None:
        if not self._finished:
            from .openapi import build_openapi  # (loaded with the first /openapi.json asked for)

            self.send_json(200, build_openapi(self.core, self.checked_base()))

    head = get  # the GET's status and headers, no body (RFC 9110 § 9.3.2)


class ProtectedResourceHandler(PlainErrors, BaseHandler):
    """``GET /.well-known/oauth-protected-resource[/<path>]``: RFC 9728 metadata (no token needed).

    404 when the server has no authorization configured (there is no protected resource).
    """

    public = True

    def get(self, suffix: str | None = None) -> None:
        if self._finished:
            return
        if self.config.auth is None:
            self.fail(RouteNotFound("This server has no authorization configured"))
            return
        self.set_header("Cache-Control", self.cache_control())
        self.send_json(200, auth.metadata_document(self.config.auth, self.public_base(), suffix or "", self.core.name))

    head = get  # the GET's status and headers, no body (RFC 9110 § 9.3.2)


_SHOWN_PATH = 200
"""How much of an unknown path a 404 repeats."""


class NotFoundHandler(PlainErrors, BaseHandler):
    """Any other path: a JSON 404 that says what exists.

    On a server with authorization, a request without a valid token gets the 401 (with
    ``WWW-Authenticate``) every route answers first: a caller without a token learns that a token is
    needed, not which paths exist. Two kinds of request still get the 404 without one: a CORS
    preflight (it never carries credentials), and a path under ``/.well-known/`` — the URIs a client
    probes before it has a token (RFC 8615; an OAuth client asks for the authorization server's
    metadata at this host and takes a 404 as "not here").
    """

    async def prepare(self) -> None:
        await super().prepare()  # the Origin and Host checks (no token: no method of its own is allowed)
        verifier = self.config.auth
        if verifier is not None and not self._finished and self.request.method != "OPTIONS" and not _probe(
                self.request.path, self.config.path_prefix):
            try:
                await self.authorize(verifier)
            except ServerBusy as exc:  # the verifier cannot judge the token now: as on every route
                self.set_header("Connection", "close")
                self.fail(exc)
        if not self._finished:
            path = self.request.path
            if len(path) > _SHOWN_PATH:  # a 60 KB path is not echoed back whole
                path = path[:_SHOWN_PATH] + "…"
            self.fail(RouteNotFound(f"No route for {self.request.method} {path}; see GET / for the endpoints"))


def _probe(path: str, prefix: str) -> bool:
    """Whether ``path`` is under ``/.well-known/`` (at the host's root or under the path prefix, in any spelling
    of it the routes answer: :func:`~.url_path.spellings`)."""
    path = path + "/"
    return path.startswith("/.well-known/") or (
        bool(prefix) and re.match(spellings(prefix) + r"/\.well-known/", path) is not None)
