"""The edge checks of a request, decidable from its headers alone: Origin, Host, the bearer token.

Every route's ``prepare()`` runs them (:meth:`~nanohubmcp.transports.base.BaseHandler.prepare`).
A request with a body is judged here already when its headers arrive, before any body byte
is kept (:meth:`~nanohubmcp.transports.http_server.LimitedApplication.get_handler_delegate`):
a request these checks let through has its body buffered, and its handler takes the verdict
(:data:`EARLY`) instead of checking again; any other goes to its route's streamed twin, whose
``prepare()`` answers the refusal (401, 403, 421) before the body is read and closes the
connection. A client without a valid token cannot make the server hold its body.

Source: MCP 2025-11-25, Transports § Security Warning (Origin); Authorization (401 and
``WWW-Authenticate``, RFC 6750 § 3); RFC 9110 § 10.1.1 (a final status instead of
``100 Continue``).
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any

from tornado import httputil
from tornado.http1connection import HTTP1Connection

from ..auth.verifiers import principal_class
from ..errors import ForbiddenOrigin, MisdirectedRequest, ProtocolError
from ..protocol.message_values import show
from .auth import bearer_token
from .config import TransportConfig
from .origin import host_allowed, origin_allowed

_EDGE_PASSED: weakref.WeakKeyDictionary[Any, tuple[str | None, str]] = weakref.WeakKeyDictionary()
"""Per TCP connection (its stream), the ``(Origin, Host)`` last let through: a keep-alive client's
next request with the same two headers skips the checks (one entry per open connection)."""

EARLY = "nanohubmcp_early"
"""The key of a request's ``__dict__`` holding the verdict of :func:`early_verdict`: its edge
passed, and the verifier's answer (a :class:`Principal`, None, or an awaitable still to be
awaited) or :data:`NO_TOKEN` when no token is checked."""
NO_TOKEN = object()
"""The verdict of a request whose edge passed on a server (or route) without authorization."""


def edge_refusal(request: httputil.HTTPServerRequest, config: TransportConfig) -> ProtocolError | None:
    """Why ``request``'s ``Origin`` or ``Host`` is refused (403 an Origin, whatever the Host; then
    421 a Host), or None. A connection's next request with the same two headers is not checked again."""
    headers = request.headers
    origin = headers.get("Origin") if "Origin" in headers else None  # (a miss in get() raises inside)
    edge = (origin, request.host)
    connection = request.connection
    stream = connection.stream if isinstance(connection, HTTP1Connection) else None
    if stream is not None and _EDGE_PASSED.get(stream) == edge:
        return None
    if not origin_allowed(origin, config):
        return ForbiddenOrigin(
            f"Forbidden: origin {origin} is not allowed; add it to allowed_origins to permit it")
    if not host_allowed(request.host, config):
        return MisdirectedRequest(
            f"Misdirected Request: this server does not answer for host {show(request.host)} "
            "(it listens on loopback; a proxy that forwards another host name must be named in public_url: "
            "run(public_url=...), --public-url or $MCP_PUBLIC_URL)")
    if stream is not None:
        _EDGE_PASSED[stream] = edge
    return None


def early_verdict(request: httputil.HTTPServerRequest, config: TransportConfig, public: bool) -> bool:
    """Judge a POST's headers before its body: records the verdict under :data:`EARLY` when the
    edge passes (the verifier's answer to the token, :data:`NO_TOKEN` without authorization or on
    a ``public`` route) and returns True when the body may be buffered (a principal, or no token
    needed); False: a refusal or an asynchronous verifier's answer is due first."""
    if edge_refusal(request, config) is not None:
        return False
    verifier = config.auth
    if verifier is None or public:
        request.__dict__[EARLY] = NO_TOKEN
        return True
    token = bearer_token(request.headers.get("Authorization"))
    try:
        verdict = None if token is None else verifier.verify(token)
    except Exception:  # the handler's prepare() verifies again and answers (a 500: a server fault)
        return False
    if isinstance(verdict, principal_class()):
        request.__dict__[EARLY] = verdict
        return True
    if inspect.isawaitable(verdict):  # awaited by the handler's prepare(), before the body
        request.__dict__[EARLY] = verdict
    return False  # (a refused token is verified again by the handler: no verdict kept)
