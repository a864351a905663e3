"""``make_app``: the Tornado application with every route, under the path prefix.

Routes (all under ``path_prefix``): ``/`` (GET info, POST JSON-RPC, DELETE session), ``/mcp``
(Streamable HTTP), ``/sse`` + ``/messages/`` (legacy HTTP+SSE), ``/tools/<name>`` (REST),
``/openapi.json``, ``/.well-known/mcp.json``, ``/.well-known/oauth-protected-resource`` (RFC 9728,
also path-aware), and the discovery documents of ``discovery.py``: ``/mcp/server-card``,
``/.well-known/mcp/catalog.json``, ``/.well-known/ai-catalog.json``, and the probes ``/healthz`` and
``/readyz`` (``health.py``: no token, no Host check, one word). A trailing slash is accepted on
``/``, ``/mcp``, ``/sse``, ``/messages/`` and ``/tools/<name>``; the documents take none (404). With a
prefix the RFC 9728 metadata is also at ``/.well-known/oauth-protected-resource<prefix>[/...]`` (outside
the prefix: RFC 9728 § 3.1 puts the resource's path after the well-known name). Any other path is
``not_found.py``'s 404.

Built for a first answer on ``/mcp``: each route's pattern is compiled at the first request matched against it
(:class:`FirstUsePath`), and every handler but ``/mcp``'s and the 404's is imported with its route's first request
(:class:`HandlerAtFirstUse`).
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import TYPE_CHECKING, Any

import tornado.web
from tornado import httputil
from tornado.routing import Matcher, PathMatches, Router, Rule

from ..server.connection import Connection
from .access_log import quiet_log
from .auth import bind_resource
from .config import TransportConfig
from .http_server import LimitedApplication
from .not_found import NotFoundHandler
from .streamable_http import StreamableHTTPHandler
from .url_path import spellings

if TYPE_CHECKING:
    from .served import ServedServer


def make_app(server: ServedServer, config: TransportConfig) -> tornado.web.Application:
    """Build the application serving ``server`` (the ``MCPServer`` facade) with ``config``."""
    prefix = spellings(config.path_prefix)  # "/App" also as "/%41pp": a proxy may forward the client's spelling
    bind_resource(config)
    core = server.core
    kwargs = {"config": config, "connection": Connection(core, "streamable-http", server)}
    legacy = {**kwargs, "connection": Connection(core, "sse", server)}
    rest = {**kwargs, "connection": Connection(core, "rest", server)}
    app = LimitedApplication(
        default_handler_class=NotFoundHandler,
        default_handler_args=kwargs,
        compress_response=False,
        serve_traceback=False,
        log_function=quiet_log,
        max_buffered_bytes=config.max_buffered_bytes,
        max_buffered_bytes_per_principal=config.buffered_share,
    )

    def later(module: str, name: str) -> HandlerAtFirstUse:
        return HandlerAtFirstUse(app, module, name)

    routes: list[tuple[str, type[tornado.web.RequestHandler] | HandlerAtFirstUse, dict[str, Any]]] = [
        (rf"{prefix}/mcp/?", StreamableHTTPHandler, kwargs),  # first: the hot route
        (rf"{prefix}/?", later(".documents", "RootHandler"), kwargs),
        (rf"{prefix}/sse/?", later(".sse", "LegacySSEHandler"), legacy),
        (rf"{prefix}/messages/?", later(".sse", "LegacyMessagesHandler"), legacy),
        (rf"{prefix}/tools/([^/]+)/?", later(".rest", "RestToolHandler"), rest),
        (rf"{prefix}/openapi\.json", later(".documents", "OpenAPIHandler"), kwargs),
        (rf"{prefix}/\.well-known/mcp\.json", later(".documents", "DiscoveryHandler"), kwargs),
        (rf"{prefix}/\.well-known/oauth-protected-resource(/.*)?", later(".documents", "ProtectedResourceHandler"),
         kwargs),
        (rf"{prefix}/mcp/server-card", later(".discovery", "ServerCardHandler"), kwargs),
        (rf"{prefix}/\.well-known/mcp/catalog\.json", later(".discovery", "MCPCatalogHandler"), kwargs),
        (rf"{prefix}/\.well-known/ai-catalog\.json", later(".discovery", "AICatalogHandler"), kwargs),
        (rf"{prefix}/healthz", later(".health", "HealthHandler"), {**kwargs, "ready": False}),
        (rf"{prefix}/readyz", later(".health", "HealthHandler"), {**kwargs, "ready": True}),
    ]
    if prefix:  # RFC 9728 § 3.1's own place for a resource under a path: the path after the well-known name
        routes.append((rf"/\.well-known/oauth-protected-resource({prefix}(?:/.*)?)",
                       later(".documents", "ProtectedResourceHandler"), kwargs))
    app.wildcard_router.add_rules(
        [Rule(FirstUsePath(pattern), handler, handler_kwargs) for pattern, handler, handler_kwargs in routes])
    return app


class HandlerAtFirstUse(Router):
    """A route's handler class named by its module (relative to this package) and class name, imported when the
    route first serves a request rather than when the application is built.

    A first answer on ``/mcp`` then loads none of the other routes' handlers (legacy SSE, REST, the documents, the
    probes: ~4 M instructions at start); the first request to one of those routes imports its module (a few hundred
    microseconds, once). The request is then served exactly as a route naming the class is: through
    ``application.get_handler_delegate``, with the same keyword arguments and path arguments.
    """

    def __init__(self, application: tornado.web.Application, module: str, name: str) -> None:
        self.application = application
        self.module = module
        self.name = name

    @functools.cached_property
    def handler_class(self) -> type[tornado.web.RequestHandler]:
        """The class, its module imported at the first look."""
        module = importlib.import_module(self.module, __package__)
        handler: type[tornado.web.RequestHandler] = getattr(module, self.name)
        return handler

    def find_handler(self, request: httputil.HTTPServerRequest, **kwargs: Any) -> httputil.HTTPMessageDelegate:
        # kwargs: what a matched rule hands its target (target_kwargs, path_args, path_kwargs), as a class gets them
        return self.application.get_handler_delegate(request, self.handler_class, **kwargs)


class FirstUsePath(Matcher):
    """A path route (what Tornado makes of a ``(pattern, handler, kwargs)`` route) whose pattern is compiled when a
    request is first matched against it rather than when the application is built.

    Holds the pattern's text and, from the first use on, Tornado's own :class:`~tornado.routing.PathMatches` built
    from it, to which :meth:`match`, :meth:`reverse` and :attr:`regex` delegate: a request matches, and a route
    reverses, exactly as with Tornado's matcher. Routes are tried in order, so a first answer on ``/mcp`` compiles
    only that route's pattern, not the other twelve (~0.2 M instructions each at start).

    Args:
        path_pattern: the route's regular expression, as ``PathMatches`` takes it (``$`` is appended when missing).
    """

    def __init__(self, path_pattern: str) -> None:
        self.pattern = path_pattern
        """The pattern's text, as given."""
        self._path: PathMatches | None = None

    @property
    def compiled(self) -> bool:
        """Whether the pattern has been compiled (by a request, :meth:`reverse` or :attr:`regex`)."""
        return self._path is not None

    def match(self, request: httputil.HTTPServerRequest) -> dict[str, Any] | None:
        """As :meth:`PathMatches.match <tornado.routing.PathMatches.match>`: the handler's path arguments
        (``{"path_args": [...], "path_kwargs": {...}}``, each value bytes) when ``request.path`` matches, else None."""
        return (self._path or self._compile()).match(request)

    def reverse(self, *args: Any) -> str | None:
        """As :meth:`PathMatches.reverse <tornado.routing.PathMatches.reverse>`: the path with ``args`` in its
        groups (each URL-escaped), None when the pattern cannot be reversed."""
        return (self._path or self._compile()).reverse(*args)

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern, as ``PathMatches.regex`` (compiled now: code listing an application's routes
        reads it before any request)."""
        return (self._path or self._compile()).regex

    def _compile(self) -> PathMatches:
        self._path = path = PathMatches(self.pattern)
        self.match = path.match  # type: ignore[method-assign]  # from now on Tornado's own: no call of ours a request
        return path
