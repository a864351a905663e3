"""The call pipeline: the ordered layers (middleware) every request passes on its way to its handler.

A layer is ``async def layer(request, call_next)``; what it sees and hands on (:class:`~.middleware.Request`,
``call_next``) and the records of a built-in one (:class:`~.middleware.Layer`, :class:`~.middleware.Route`)
are :mod:`.middleware`'s. This module composes them.

Layers run in the order they were added, the first added outermost: it sees the request first
and the result last. The tracing layer, when the server traces, is put outside them all
(:meth:`Pipeline.wrap`); then come the server's built-in layers (version gating, the in-flight limit
of a session, per-tool scopes: :mod:`.layers`), the provenance and result cache layers (made at
their first use: :meth:`Pipeline.add_made`), then the layers added with ``server.add_middleware``.
Every request of every transport (Streamable HTTP, legacy HTTP+SSE, ``POST /``, REST, stdio, the
in-memory clients) and of both protocol eras passes the chain of its route, composed from these;
notifications and the client's responses to server→client requests do not (they have no result).

Chains are composed ahead of requests, not per request: each layer is bound to the rest of its
chain once. A built-in layer that acts on some requests only says which (its ``acts`` predicate
over a :class:`~.middleware.Route`: the method, the era, whether the caller was authenticated and whether the
request belongs to a session); the chain of a route holds the layers that act on it and no other,
composed on the route's first request and again after a layer is added or what a predicate reads
changed (:meth:`Pipeline.refresh`). A layer added with ``server.add_middleware`` acts on every
route. A request passes one chain: the one of the route it arrived with.

Where a chain holds layers added with ``server.add_middleware``, two steps around them say in the
request's :data:`ANSWERED_BY_LAYER` slot whether the handler was reached: set before the outermost
of them, cleared after the innermost. A layer outside them (the provenance records, the result
cache) reads it to tell a middleware's own answer from the handler's; a chain without such layers
has neither step and costs nothing more.

The step before the outermost of them also takes the request's :data:`STREAMS_TEXT` slot away, so
the application's layers see plain values: a ``resources/read`` of a kept result answers its text
as a ``str``, not as its open file (:class:`~nanohubmcp.protocol.text_pieces.TextPieces`, which has no
``len``, no slicing and no JSON form for the standard library). Its text is then held whole, as on
a transport that never streams it; a chain without the application's layers still streams it, and
so does one whose layers were all added with ``stream_kept_text=True`` (they pass the text on
untouched: the slot stays as the transport set it, and they get the ``TextPieces``).
The step after the innermost of them hands them the result with the values the server wrote ahead
as JSON text (an array's or a table's ``structuredContent``, a
:class:`~nanohubmcp.protocol.encoded.Encoded`) decoded into lists and dicts
(:mod:`~nanohubmcp.server.results.decoded`): they may dump, measure and change it, and what they
return is written as it stands (the text an answer going as one SSE event was written to when measured,
:mod:`~nanohubmcp.server.results.written`, is dropped there: it is written again as they leave it). A chain
without the application's layers still writes that text as it is, never decoded.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Collection, Iterable
from typing import TYPE_CHECKING, Any

from ..protocol import foreign_values
from .middleware import Route
from .wire.request import ANSWERED_BY_LAYER, STREAMS_TEXT

if TYPE_CHECKING:
    from .middleware import Acts, CallNext, Layer, Middleware, Request


class NotAResult(TypeError):
    """A middleware answered a request with something other than a result dict."""


class _Slot:
    """A layer of the chain: given, or made by ``make`` when a chain it acts on is first composed."""

    __slots__ = ("acts", "make", "middleware", "streams", "user")

    def __init__(self, middleware: Middleware | None, acts: Acts | None, make: Callable[[], Middleware] | None = None,
                 *, user: bool = False, streams: bool = False):
        self.middleware = middleware
        self.acts = acts
        self.make = make
        self.user = user
        """Added with ``server.add_middleware`` (the application's, not a built-in layer)."""
        self.streams = streams
        """An application's layer that passes a kept read's text on untouched (``stream_kept_text``)."""

    def get(self) -> Middleware:
        if self.middleware is None:
            assert self.make is not None
            layer = self.make()
            check_middleware(layer)
            self.middleware = layer
        return self.middleware



class Pipeline:
    """The ordered layers in front of an endpoint (the method handlers), composed per route.

    Args:
        endpoint: the innermost step: runs the request's handler and returns (an awaitable of) its
            wire result.
        layers: the built-in layers, outermost first: ``async def`` functions, or plain ones that
            return ``call_next(request)``'s awaitable (a request then passes them without a
            coroutine level each) or raise.
        methods: the methods whose routes get a chain of their own (the ones the server has
            handlers for); a request of any other method passes every layer (:attr:`call`),
            so the number of chains kept does not depend on what clients send.
    """

    def __init__(self, endpoint: CallNext, layers: Iterable[Layer] = (), *, methods: Collection[str] = ()) -> None:
        self._endpoint = endpoint
        self._layers: list[_Slot] = []
        self._methods = frozenset(methods)
        self.chains: dict[tuple[str, bool, bool, bool], CallNext] = {}
        """Route → its composed chain (read in place by the dispatcher; replaced, never cleared)."""
        self._every: CallNext | None = endpoint
        # The built-in layers are ours: they may be plain functions handing on call_next's awaitable.
        self._layers.extend(_Slot(layer.middleware, layer.acts) for layer in layers)

    @property
    def call(self) -> CallNext:
        """The chain of every layer: ``await pipeline.call(request)`` (composed on first use)."""
        every = self._every
        if every is None:
            every = self._every = self._compose(None)
        return every

    @property
    def layers(self) -> tuple[Middleware, ...]:
        """The layers, outermost first (a layer made at first use is made now)."""
        return tuple(slot.get() for slot in self._layers)

    def add(self, layer: Middleware, *, acts: Acts | None = None, stream_kept_text: bool = False) -> None:
        """Add ``layer`` inside the ones already there (it runs after them, before the handler);
        ``acts`` says which routes it acts on (default: every one). With ``stream_kept_text`` the
        layer takes a kept read's text as the transport writes it (see the module's docstring).

        Raises:
            TypeError: ``layer`` is not an ``async def`` function of ``(request, call_next)``, or
                ``stream_kept_text`` is not a bool.
        """
        check_middleware(layer)
        if type(stream_kept_text) is not bool:
            raise TypeError(f"stream_kept_text must be True or False, not {stream_kept_text!r}")
        # A numpy value the layer puts into a result is written as a tool's; the converters are loaded at
        # the first such value (a served script's start loads none of them).
        foreign_values.convert_values_with(_as_a_tools_value)
        self._layers.append(_Slot(layer, acts, user=True, streams=stream_kept_text))
        self.refresh()

    @property
    def middleware(self) -> tuple[Middleware, ...]:
        """The layers added with :meth:`add` (the application's), outermost first."""
        return tuple(slot.get() for slot in self._layers if slot.user)

    def not_a_result(self, method: str, value: object) -> NotAResult:
        """The error of a chain that answered ``method`` with ``value``, not a result dict: naming
        the application's outermost layer, which did (the built-in ones and the handlers always answer a dict, and
        what each application layer inside it answers is checked where it returns: :func:`_checked`)."""
        layers = self.middleware
        return _not_a_result(layers[0] if layers else None, method, value)

    def add_made(self, make: Callable[[], Middleware], *, acts: Acts) -> None:
        """Add the layer ``make()`` returns inside the ones already there, made when the first
        chain of a route it acts on is composed (a built-in layer whose state costs to build:
        a server that never gets such a request never makes it). ``acts`` must not need the
        layer made.

        Raises:
            TypeError: (when made) ``make()`` returned no ``async def`` function of ``(request, call_next)``.
        """
        self._layers.append(_Slot(None, acts, make))
        self.refresh()

    def remake(self) -> None:
        """Forget the layers :meth:`add_made` made: each is made again when a chain it acts on is next
        composed (the services behind them were replaced: a testing client's state directory was left)."""
        for slot in self._layers:
            if slot.make is not None:
                slot.middleware = None
        self.refresh()

    def wrap(self, layer: Middleware, *, acts: Acts | None = None) -> None:
        """Add ``layer`` outside every layer already there (it sees each request first and its
        result last: the tracing layer times the whole chain).

        Raises:
            TypeError: ``layer`` is not an ``async def`` function of ``(request, call_next)``.
        """
        check_middleware(layer)
        self._layers.insert(0, _Slot(layer, acts))
        self.refresh()

    def refresh(self) -> None:
        """Compose the chains again (from the next request of each route on): a layer was added,
        or something a layer's ``acts`` reads changed (e.g. the registered tools)."""
        self._every = None
        self.chains = {}

    def chain(self, route: tuple[str, bool, bool, bool]) -> CallNext:
        """The chain of ``route`` (a :class:`~.middleware.Route`, or the plain tuple of its fields): the layers
        that act on it, then the endpoint; composed on first use."""
        chains = self.chains  # a refresh while composing replaces it: what is composed here is then dropped
        chain = chains.get(route)
        if chain is None:
            if route[0] not in self._methods:
                return self.call
            chain = chains[route] = self._compose(Route(*route))
        return chain

    def _compose(self, route: Route | None) -> CallNext:
        acting = [slot for slot in self._layers if route is None or slot.acts is None or slot.acts(route)]
        # A kept read's text stays in pieces only if no layer of the application's here wants a str.
        streams = all(slot.streams for slot in acting if slot.user)
        call = self._endpoint
        among_users = False  # composing outward: inside a run of the application's layers
        outermost = next((slot for slot in acting if slot.user), None)
        for slot in reversed(acting):
            if slot.user != among_users:
                # the innermost of a run: past it the handler is reached; the outermost: a request enters it
                call = _reached(call, streams) if slot.user else _entering(call, streams)
                among_users = slot.user
            # An application layer's answer is checked as it returns (the layer outside it may read it), but for
            # the outermost one's, which the dispatcher checks: a server with one middleware pays nothing.
            call = _checked(slot.get(), call) if slot.user and slot is not outermost else _bind(slot.get(), call)
        return _entering(call, streams) if among_users else call


def _entering(call_next: CallNext, streams: bool) -> CallNext:
    """``call_next`` (the outermost of the application's layers), marking the request as not yet
    at its handler (:data:`ANSWERED_BY_LAYER`) and, unless ``streams`` (every such layer of the
    chain takes a kept read's text in pieces), its answer as made of plain values (no
    :data:`STREAMS_TEXT`: what those layers get back is a result they may dump, measure and slice)."""

    def entering(request: Request) -> Awaitable[dict[str, Any]]:
        slots = request.context.slots
        slots[ANSWERED_BY_LAYER] = True
        if not streams:
            slots.pop(STREAMS_TEXT, None)
        return call_next(request)

    return entering


def _reached(call_next: CallNext, streams: bool) -> CallNext:
    """``call_next`` (what follows the innermost of the application's layers), marking the request
    as handed on past them (:data:`ANSWERED_BY_LAYER`) and handing them its result made of plain
    values (:func:`~nanohubmcp.server.results.decoded.decoded`), a kept read's text left in its
    pieces when ``streams``, and a registry list's entries copied (:func:`~.registry.list_copies.detached`:
    a change they make in place stays out of the registry's cached listing)."""
    from .registry.list_copies import detached
    from .results.decoded import decoded  # (a server with middleware only: not loaded at start)
    from .results.written import WRITTEN

    async def reached(request: Request) -> dict[str, Any]:
        slots = request.context.slots
        slots[ANSWERED_BY_LAYER] = False
        result = await call_next(request)
        slots.pop(WRITTEN, None)  # (they may change the result anywhere: it is written again as they leave it)
        return detached(request.method, decoded(result, texts=not streams))

    return reached


def _not_a_result(layer: Middleware | None, method: str, value: object) -> NotAResult:
    who = f"middleware {(getattr(layer, '__name__', None) or layer)!r}" if layer is not None else \
        "a layer of the call pipeline"
    return NotAResult(f"{who} answered {method} with {type(value).__name__}, not a result dict: a middleware "
                      "must return 'await call_next(request)' or a dict of its own")


def _checked(layer: Middleware, call_next: CallNext) -> CallNext:
    """``layer`` bound to ``call_next``, its answer checked as it returns: anything but a dict (``None`` from a
    missing ``return``, an un-awaited ``call_next(request)``) raises :class:`NotAResult` naming it, before the
    layer outside it reads it."""
    bound = _bind(layer, call_next)

    async def checked(request: Request) -> dict[str, Any]:
        result = await bound(request)
        if not isinstance(result, dict):
            if inspect.iscoroutine(result):
                result.close()  # (an un-awaited call_next: no "never awaited" warning besides the error)
            raise _not_a_result(layer, request.method, result)
        return result

    return checked


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


def _as_a_tools_value(value: object) -> Any:
    """``value`` (JSON has no form for it) as a tool's result writes it (:func:`.results.convert.jsonable`,
    loaded here at the first such value; loading it makes that the encoder's converter directly)."""
    from .results import convert

    return convert.jsonable(value)
