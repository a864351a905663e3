"""A layer of the call pipeline as it is written: its signature, the request it sees, the routes it acts on.

A layer is ``async def layer(request, call_next)`` (:data:`Middleware`). It sees a :class:`Request` (the
JSON-RPC method, its params, the caller, the session, the protocol version), may look at or replace the
request, and either answers itself (returns a result dict, or raises
:class:`~nanohubmcp.errors.ProtocolError` to answer with that JSON-RPC error) or hands the
request on with ``await call_next(request)`` (:data:`CallNext`), which returns the result as it will go
on the wire (the JSON-RPC ``result`` member, a dict) or raises the error the call ended with.

A built-in layer comes as a :class:`Layer`: its middleware and the routes it acts on (its ``acts``
predicate over a :class:`Route`, what chooses a request's chain before any layer runs). Composing
the layers into chains, in order, is :mod:`.pipeline`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..protocol.tuple_records import TupleRecord

if TYPE_CHECKING:
    from ..protocol.versions import ProtocolVersion
    from .registry.components import Tool
    from .wire.principal import Principal
    from .wire.request import RequestContext

CallNext = Callable[["Request"], Awaitable[dict[str, Any]]]
"""``await call_next(request)``: the rest of the chain; returns the result dict or raises."""
Middleware = Callable[["Request", CallNext], Awaitable[dict[str, Any]]]
"""``async def layer(request, call_next) -> dict``: one layer of the call pipeline."""


class Route(TupleRecord, tuple[str, bool, bool, bool]):
    """What chooses a request's chain, known before any layer runs: ``(method, modern, authorized, in_session)``.

    A tuple (compared, hashed and unpacked as one) written out: a ``NamedTuple`` cost ~0.9 M instructions more to
    make when this module loads (bench/startup.md, eighth pass)."""

    __slots__ = ()
    _fields = ("method", "modern", "authorized", "in_session")

    def __new__(cls, method: str, modern: bool, authorized: bool, in_session: bool) -> Route:
        return tuple.__new__(cls, (method, modern, authorized, in_session))

    @property
    def method(self) -> str:
        """The JSON-RPC method."""
        return self[0]

    @property
    def modern(self) -> bool:
        """The request is of the stateless era (2026-07-28)."""
        return self[1]

    @property
    def authorized(self) -> bool:
        """The transport authenticated the caller (a principal: the server has authorization configured)."""
        return self[2]

    @property
    def in_session(self) -> bool:
        """The request belongs to a session (``Mcp-Session-Id``, stdio's one session)."""
        return self[3]


Acts = Callable[[Route], bool]
"""``acts(route)``: whether a layer does anything for requests of ``route`` (asked when the
route's chain is composed; a layer that does not act is left out of it)."""


class Layer(TupleRecord, tuple[Middleware, Acts | None]):
    """A built-in layer and the routes it acts on, ``(middleware, acts)`` (its ``middleware`` may be a plain
    function that returns ``call_next(request)``'s awaitable: see :class:`~.pipeline.Pipeline`). A tuple
    written out, as :class:`Route` is."""

    __slots__ = ()
    _fields = ("middleware", "acts")

    def __new__(cls, middleware: Middleware, acts: Acts | None = None) -> Layer:
        return tuple.__new__(cls, (middleware, acts))

    @property
    def middleware(self) -> Middleware:
        """The layer's middleware."""
        return self[0]

    @property
    def acts(self) -> Acts | None:
        """Whether it acts on a route; None: every route."""
        return self[1]


if TYPE_CHECKING:  # for type checkers only: a Protocol class costs ~0.14 M instructions to make at import
    class ToolTable(Protocol):
        """What a :class:`Request` reads of the registry's tools: the current name → tool map."""

        @property
        def by_name(self) -> Mapping[str, Tool]: ...


class Request:
    """One JSON-RPC request as a layer of the call pipeline sees it.

    Attributes:
        method: the JSON-RPC method (``"tools/call"``, ``"resources/read"``, …).
        params: the request's ``params`` (a dict; empty when the request had none). A layer may
            hand on a changed request: ``await call_next(request.replace(params={...}))``. A
            ``tools/call``'s ``params["arguments"]`` is always a dict (``{}`` when the client sent
            null or none): other values are refused (-32602) before any layer runs.
        context: the server's own state of the request in flight (for the built-in layers).
        tool: the registered tool a ``tools/call`` names (``params.name``), looked up once when the
            request is made (None: another method, or no such tool).
    """

    __slots__ = ("_tools", "context", "method", "params", "tool")

    def __init__(
        self, context: RequestContext, method: str, params: dict[str, Any], tools: ToolTable | None = None
    ) -> None:
        self.context = context
        self.method = method
        self._tools = tools
        self.tool: Tool | None
        if method == "tools/call":
            if type(params.get("arguments")) is not dict:
                # settled before any layer sees it: null or absent is no arguments, anything else -32602
                from .calls.tool_checks import call_arguments  # the rare path; tool_checks loads at the first call

                params = {**params, "arguments": call_arguments(params)}
            name = params.get("name")
            self.tool = tools.by_name.get(name) if tools is not None and type(name) is str else None
        else:
            self.tool = None
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
        """A copy of this request with another ``method`` or ``params`` (the rest shared).

        Raises:
            InvalidParams: a ``tools/call`` whose ``params["arguments"]`` is neither a dict nor None.
        """
        return Request(
            self.context,
            self.method if method is None else method,
            self.params if params is None else params,
            self._tools,
        )

    def __repr__(self) -> str:
        return f"<Request {self.method} id={self.id!r} version={self.protocol_version}>"
