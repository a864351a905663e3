"""``make_app``: the Tornado application with every route, under the path prefix.

Routes (all under ``path_prefix``): ``/`` (GET info, POST JSON-RPC, DELETE session), ``/mcp``
(Streamable HTTP), ``/sse`` + ``/messages/`` (legacy HTTP+SSE), ``/tools/<name>`` (REST),
``/openapi.json``, ``/.well-known/mcp.json``, ``/.well-known/oauth-protected-resource`` (RFC 9728,
also path-aware), and the discovery documents of ``discovery.py``: ``/mcp/server-card``,
``/.well-known/mcp/catalog.json``, ``/.well-known/ai-catalog.json``. Trailing slashes are accepted.
"""

from __future__ import annotations

import logging
import re

import tornado.web

from ..server.connection import Connection
from .auth import bind_resource
from .config import TransportConfig
from .discovery import AICatalogHandler, MCPCatalogHandler, ServerCardHandler
from .documents import DiscoveryHandler, NotFoundHandler, OpenAPIHandler, ProtectedResourceHandler, RootHandler
from .http_server import LimitedApplication
from .rest import RestToolHandler
from .served import ServedServer
from .sse import LegacyMessagesHandler, LegacySSEHandler
from .streamable_http import StreamableHTTPHandler


def make_app(server: ServedServer, config: TransportConfig) -> tornado.web.Application:
    """Build the application serving ``server`` (the ``MCPServer`` facade) with ``config``."""
    prefix = re.escape(config.path_prefix)
    bind_resource(config)
    core = server.core
    kwargs = {"server": server, "config": config, "connection": Connection(core, "streamable-http", server)}
    legacy = {**kwargs, "connection": Connection(core, "sse", server)}
    rest = {**kwargs, "connection": Connection(core, "rest", server)}
    routes = [
        (rf"{prefix}/mcp/?", StreamableHTTPHandler, kwargs),  # first: the hot route
        (rf"{prefix}/?", RootHandler, kwargs),
        (rf"{prefix}/sse/?", LegacySSEHandler, legacy),
        (rf"{prefix}/messages/?", LegacyMessagesHandler, legacy),
        (rf"{prefix}/tools/([^/]+)/?", RestToolHandler, rest),
        (rf"{prefix}/openapi\.json", OpenAPIHandler, kwargs),
        (rf"{prefix}/\.well-known/mcp\.json", DiscoveryHandler, kwargs),
        (rf"{prefix}/\.well-known/oauth-protected-resource(/.*)?", ProtectedResourceHandler, kwargs),
        (rf"{prefix}/mcp/server-card", ServerCardHandler, kwargs),
        (rf"{prefix}/\.well-known/mcp/catalog\.json", MCPCatalogHandler, kwargs),
        (rf"{prefix}/\.well-known/ai-catalog\.json", AICatalogHandler, kwargs),
    ]
    return LimitedApplication(
        routes,
        default_handler_class=NotFoundHandler,
        default_handler_args=kwargs,
        compress_response=False,
        serve_traceback=False,
        log_function=_quiet_log,
    )


_ACCESS = logging.getLogger("nanohubmcp.access")


def _quiet_log(handler: tornado.web.RequestHandler) -> None:
    """Access log at DEBUG (a line per request at INFO would drown a notebook's output)."""
    status = handler.get_status()
    logger = _ACCESS
    level = logging.WARNING if status >= 500 else logging.DEBUG
    if logger.isEnabledFor(level):
        import hashlib

        # A session is named by a digest of its id (the id itself is a credential).
        session_id = handler.request.headers.get("Mcp-Session-Id") or handler.get_query_argument("session_id", "")
        tag = f" session={hashlib.sha256(session_id.encode()).hexdigest()[:12]}" if session_id else ""
        logger.log(level, "%d %s %.1fms%s", status, handler._request_summary(),
                   1000.0 * handler.request.request_time(), tag)
