"""The call pipeline: the ordered layers (middleware) every request passes on its way to its handler.

A layer is ``async def layer(request, call_next)``. It sees a :class:`Request` (the JSON-RPC
method, its params, the caller, the session, the protocol version), may look at or replace the
request, and either answers itself (returns a result dict, or raises
:class:`~nanohubmcp.errors.ProtocolError` to answer with that JSON-RPC error) or hands the
request on with ``await call_next(request)``, which returns the result as it will go on the wire
(the JSON-RPC ``result`` member, a dict) or raises the error the call ended with.

Layers run in the order they were added, the first added outermost: it sees the request first
and the result last. The server's built-in layers (version gating, per-tool scopes) come first,
then the layers added with ``server.add_middleware``. Every request of every transport
(Streamable HTTP, legacy HTTP+SSE, ``POST /``, REST, stdio) and of both protocol eras passes the
same chain; notifications and the client's responses to server→client requests do not (they
have no result).

The chain is composed once, when a layer is added (each layer bound to the rest of the chain),
so serving a request costs one call per layer and nothing else.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..protocol.versions import ProtocolVersion
    from .wire.principal import Principal
    from .wire.request import RequestContext

CallNext = Callable[["Request"], Awaitable[dict[str, Any]]]
"""``await call_next(request)``: the rest of the chain; returns the result dict or raises."""
Middleware = Callable[["Request", CallNext], Awaitable[dict[str, Any]]]
"""``async def layer(request, call_next) -> dict``: one layer of the call pipeline."""


class Request:
    """One JSON-RPC request as a layer of the call pipeline sees it.

    Attributes:
        method: the JSON-RPC method (``"tools/call"``, ``"resources/read"``, …).
        params: the request's ``params`` (a dict; empty when the request had none). A layer may
            hand on a changed request: ``await call_next(request.replace(params={...}))``.
        context: the server's own state of the request in flight (for the built-in layers).
    """

    __slots__ = ("context", "method", "params")

    def __init__(self, context: RequestContext, method: str, params: dict[str, Any]) -> None:
        self.context = context
        self.method = method
        self.params = params

    @property
    def id(self) -> str | int | None:
        """The JSON-RPC request id (a string or an integer, as the client sent it)."""
        return self.context.request_id

    @property
    def principal(self) -> Principal | None:
        """The caller the transport authenticated (``subject``, ``scopes``, ``claims``); None
        when the server has no authorization configured (stdio, or no ``auth``/``token``)."""
        return self.context.principal

    @property
    def session_id(self) -> str | None:
        """The MCP session's id (``Mcp-Session-Id``); None for sessionless requests, REST, and the
        stateless 2026-07-28 era."""
        session = self.context.session
        return session.id if session is not None else None

    @property
    def protocol_version(self) -> ProtocolVersion:
        """The protocol version in force for this request: the version string (``"2025-11-25"``,
        ``"2026-07-28"``, …), ordered by date, naming what it allows (``.structured_content``,
        ``.can_ask_client``, ``.modern``, …)."""
        return self.context.version

    @property
    def meta(self) -> dict[str, Any]:
        """``params._meta`` (empty when absent): the progress token, trace context
        (``traceparent``, ``tracestate``, SEP-414), the 2026-07-28 protocol fields."""
        meta = self.params.get("_meta")
        return meta if isinstance(meta, dict) else {}

    @property
    def tool_name(self) -> str | None:
        """``params.name`` of a ``tools/call`` (the tool asked for), else None."""
        if self.method != "tools/call":
            return None
        name = self.params.get("name")
        return name if isinstance(name, str) else None

    def replace(self, *, method: str | None = None, params: dict[str, Any] | None = None) -> Request:
        """A copy of this request with another ``method`` or ``params`` (the rest shared)."""
        return Request(
            self.context, self.method if method is None else method, self.params if params is None else params
        )

    def __repr__(self) -> str:
        return f"<Request {self.method} id={self.id!r} version={self.protocol_version}>"


class Pipeline:
    """The ordered layers in front of an endpoint (the method handlers), composed once per change.

    Args:
        endpoint: the innermost step: runs the request's handler and returns its wire result.
        layers: the built-in layers, outermost first.
    """

    def __init__(self, endpoint: CallNext, layers: tuple[Middleware, ...] = ()) -> None:
        self._endpoint = endpoint
        self._layers: list[Middleware] = []
        self.call: CallNext = endpoint
        """The whole chain: ``await pipeline.call(request)``."""
        for layer in layers:
            self.add(layer)

    @property
    def layers(self) -> tuple[Middleware, ...]:
        """The layers, outermost first."""
        return tuple(self._layers)

    def add(self, layer: Middleware) -> None:
        """Add ``layer`` inside the ones already there (it runs after them, before the handler).

        Raises:
            TypeError: ``layer`` is not an ``async def`` function of ``(request, call_next)``.
        """
        check_middleware(layer)
        self._layers.append(layer)
        self._compose()

    def wrap(self, layer: Middleware) -> None:
        """Add ``layer`` outside every layer already there (it sees each request first and its
        result last: the tracing layer times the whole chain).

        Raises:
            TypeError: ``layer`` is not an ``async def`` function of ``(request, call_next)``.
        """
        check_middleware(layer)
        self._layers.insert(0, layer)
        self._compose()

    def _compose(self) -> None:
        call = self._endpoint
        for layer in reversed(self._layers):
            call = _bind(layer, call)
        self.call = call


def _bind(layer: Middleware, call_next: CallNext) -> CallNext:
    """``layer`` with its ``call_next`` filled in: a ``functools.partial`` when the layer takes
    it by keyword (no frame of ours between two layers), else a small function."""
    name = _next_parameter(layer)
    if name is not None:
        return functools.partial(layer, **{name: call_next})

    def call(request: Request) -> Awaitable[dict[str, Any]]:
        return layer(request, call_next)

    return call


def _next_parameter(layer: Middleware) -> str | None:
    """The name of ``layer``'s second parameter when it may be passed by keyword, else None."""
    try:
        parameters = list(inspect.signature(layer).parameters.values())
    except (TypeError, ValueError):
        return None
    if len(parameters) < 2:
        return None
    second = parameters[1]
    keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return second.name if second.kind in keyword else None


def check_middleware(layer: Any) -> None:
    """Refuse what cannot be a layer, at the moment it is added rather than at the first request.

    Raises:
        TypeError: not callable as ``await layer(request, call_next)``.
    """
    if not callable(layer):
        raise TypeError(f"middleware must be an async function (request, call_next), not {layer!r}")
    call = layer if inspect.isfunction(layer) or inspect.ismethod(layer) else type(layer).__call__
    if not (inspect.iscoroutinefunction(layer) or inspect.iscoroutinefunction(call)):
        raise TypeError(
            f"middleware {getattr(layer, '__name__', layer)!r} must be 'async def fn(request, call_next)' "
            "and return 'await call_next(request)' (or a result dict of its own)"
        )
    try:
        inspect.signature(layer).bind(None, None)
    except (TypeError, ValueError):
        raise TypeError(
            f"middleware {getattr(layer, '__name__', layer)!r} must take two arguments: (request, call_next)"
        ) from None
