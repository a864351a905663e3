"""OpenTelemetry for the server: the tracing layer of the call pipeline and the two MCP metrics.

Imported only when the server traces (``MCPServer(tracing=...)``, see
``nanohubmcp.server.wire.trace_context``): it needs ``opentelemetry-api`` (the ``otel`` extra). The
server emits through the API only and never configures a tracer provider, meter provider or
exporter: the application does (or ``opentelemetry-instrument``); without one, every span and
measurement is a no-op.

Per request the layer makes one span of kind SERVER, as the MCP semantic conventions say:

- name ``{mcp.method.name} {target}``, the target being the tool's name (``tools/call``) or the
  prompt's (``prompts/get``) when it is registered (a name the server does not know is client
  input: the span is named by the method alone and carries no tool or prompt name); other
  methods, ``resources/read`` among them, are named by the method alone (a resource URI is
  high-cardinality: the conventions keep it out of span names by default);
- attributes ``mcp.method.name``, ``mcp.protocol.version``, ``mcp.session.id`` (handshake-era
  sessions: the session's key, the SHA-256 of its id that provenance and job records keep —
  :func:`~nanohubmcp.server.wire.sessions.session_key` — never the id, which is the session's
  credential when there is no authorization), ``jsonrpc.request.id`` (``mcp.protocol.version`` and it are left
  out for REST calls: :data:`REST`), ``gen_ai.tool.name`` and ``gen_ai.operation.name``
  (``execute_tool``) for tools, ``gen_ai.prompt.name`` for prompts, ``mcp.resource.uri`` for
  ``resources/read``/``subscribe``/``unsubscribe``, ``network.transport`` (``pipe`` on stdio,
  ``tcp`` on HTTP) and ``network.protocol.name`` (``http``);
- parent: the client's trace context from ``params._meta`` (``traceparent``, ``tracestate``,
  ``baggage``, read with the global propagator); without one, the W3C headers of the HTTP request
  that carried the message. When both are there and differ, the HTTP one becomes a link;
- errors: a JSON-RPC error sets ``error.type`` and ``rpc.response.status_code`` to its code and the
  status to ERROR with its message; an unexpected exception sets ``error.type`` to the exception's
  qualified type name; a ``CallToolResult`` with ``isError`` sets ``error.type`` to ``tool_error``.

Cost: a span and a measurement through the SDK cost far more CPU than the layer around them, so
the layer adds nothing per call that it can make once — a span's name and its attributes known
before the call, and the histogram's attribute set, are kept per kind of request (method, tool or
prompt name, version, transport: bounded, see :data:`MAX_SHAPES`); the span is started and made
current without the API's generator-based context managers. The steps of a call are not spans
unless asked for (``nanohubmcp.server.wire.trace_context.STEP_MIN_SECONDS``).

Metrics (histograms, seconds, with the conventions' bucket boundaries):
``mcp.server.operation.duration`` per request, with the method, tool or prompt name, protocol
version, transport and ``error.type``; ``mcp.server.session.duration`` when a session ends.

Source: OpenTelemetry semantic conventions for MCP (``docs/gen-ai/mcp.md``, status Development);
MCP SEP-414 (trace context in ``_meta``).
"""

from __future__ import annotations

import inspect
import time
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, propagate, trace
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

from ..errors import ProtocolError
from .wire.trace_context import INSTRUMENTATION, SPAN, carrier_from

if TYPE_CHECKING:
    from collections.abc import Callable

    from .middleware import CallNext, Middleware, Request
    from .wire.sessions import Session, SessionStore

DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
"""The explicit bucket boundaries the conventions give for both duration histograms (seconds)."""

RESOURCE_METHODS = frozenset({"resources/read", "resources/subscribe", "resources/unsubscribe"})
TOOL_ERROR = "tool_error"


MAX_SHAPES = 1024
"""How many kinds of request (method, tool or prompt name, version, transport) the tracing layer
keeps the names and attributes of; past it, they are computed per request."""

HTTP_TRANSPORTS = frozenset({"streamable-http", "sse", "rest"})
"""The transports of ``nanohubmcp.server.connection`` that are HTTP (over TCP)."""

REST = "rest"
"""The transport of ``POST /tools/<name>``: its calls are traced as ``tools/call`` without
``jsonrpc.request.id`` and ``mcp.protocol.version`` (a REST request has no JSON-RPC id and negotiated
no MCP version: the id and version its call carries inside the server are the server's own)."""


def _network(transport: str | None) -> dict[str, str]:
    """``network.transport`` (and ``network.protocol.name``) of a transport: ``pipe`` for stdio,
    ``tcp``/``http`` for the HTTP ones, nothing for calls in the same process."""
    if transport == "stdio":
        return {"network.transport": "pipe"}
    if transport in HTTP_TRANSPORTS:
        return {"network.transport": "tcp", "network.protocol.name": "http"}
    return {}


class _Shape:
    """What every request of one (method, target, version, transport) shares: its span's name,
    the span attributes known before the call, the histogram's attributes of a success."""

    __slots__ = ("attributes", "measured", "name")

    def __init__(self, method: str, target: Any, version: str, transport: str | None) -> None:
        common: dict[str, Any] = {"mcp.method.name": method}
        if transport != REST:  # (a REST call negotiated no MCP version)
            common["mcp.protocol.version"] = version
        common.update(_network(transport))
        self.name = method
        if method == "tools/call" or method == "prompts/get":
            if isinstance(target, str):
                self.name = f"{method} {target}"
                common["gen_ai.tool.name" if method == "tools/call" else "gen_ai.prompt.name"] = target
            if method == "tools/call":
                common["gen_ai.operation.name"] = "execute_tool"
        self.attributes = common
        self.measured = common


class _Shapes:
    """The :class:`_Shape` of each kind of request, made once, and the histogram's attributes of
    each failure. The target is client input (a tool's name, known or not): both maps are bounded
    by :data:`MAX_SHAPES`; past it, a new kind is computed for its request and not kept."""

    __slots__ = ("_failed", "known")

    def __len__(self) -> int:
        return len(self.known) + len(self._failed)

    def __init__(self) -> None:
        self.known: dict[tuple[str, Any, str, str | None], _Shape] = {}
        """The shapes kept, by (method, target, version, transport); the layer reads it first."""
        self._failed: dict[tuple[int, str], tuple[dict[str, Any], dict[str, Any]]] = {}

    def of(self, method: str, target: Any, version: str, transport: str | None) -> _Shape:
        if (method != "tools/call" and method != "prompts/get") or not isinstance(target, str):
            target = None  # only these two methods are named by their target
        key = (method, target, version, transport)
        shape = self.known.get(key)
        if shape is None:
            shape = _Shape(method, target, version, transport)
            if len(self.known) < MAX_SHAPES:
                self.known[key] = shape
        return shape

    def failed(self, measured: dict[str, Any], error: str) -> dict[str, Any]:
        """The histogram's attributes of a request ``measured`` that failed with ``error``."""
        key = (id(measured), error)
        known = self._failed.get(key)
        if known is not None and known[0] is measured:
            return known[1]
        attributes = {**measured, "error.type": error}
        if error[:1] == "-":  # a JSON-RPC error code
            attributes["rpc.response.status_code"] = error
        if len(self._failed) < MAX_SHAPES:
            self._failed[key] = (measured, attributes)  # holding measured keeps its id unique
        return attributes


def _qualified(exc: BaseException) -> str:
    kind = type(exc)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


class Telemetry:
    """The server's tracer, meter and the two histograms; :meth:`layer` is the tracing layer."""

    def __init__(self, version: str, prompts: Callable[[str], object | None] | None = None) -> None:
        self.prompts = prompts
        """Looks a prompt up by name: a ``prompts/get`` is named by its prompt only when it exists."""
        self.tracer = trace.get_tracer(INSTRUMENTATION, version)
        meter = metrics.get_meter(INSTRUMENTATION, version)
        self.operation_duration = meter.create_histogram(
            "mcp.server.operation.duration",
            unit="s",
            description="The duration of the MCP request or notification as observed on the receiver "
            "from the time it was received until the result or ack is sent.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        self.session_duration = meter.create_histogram(
            "mcp.server.session.duration",
            unit="s",
            description="The duration of the MCP session as observed on the MCP server.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )

        self.shapes = _Shapes()
        """The names and attributes of the kinds of request seen so far (bounded)."""

    def layer(self) -> Middleware:
        """The tracing layer (outermost in the pipeline: it times every other layer too)."""
        # Bound once: the layer runs per request, and every name looked up through a module or an
        # object costs the call as much as the small dict work around it.
        start_span = self.tracer.start_span
        record = _recorder(self.operation_duration)
        shapes = self.shapes
        known = shapes.known
        prompts = self.prompts
        attach, detach = otel_context.attach, otel_context.detach
        in_context = trace.set_span_in_context
        server = SpanKind.SERVER
        perf_counter = time.perf_counter

        async def tracing(request: Request, call_next: CallNext) -> dict[str, Any]:
            context = request.context
            method = request.method
            params = request.params
            # Named by a registered tool or prompt only: an unknown name is client input, and as a span
            # name or a metric attribute it would be kept and exported once per distinct string.
            if method == "tools/call":
                tool = request.tool
                target = None if tool is None else tool.name
            elif (method == "prompts/get" and prompts is not None and isinstance(name := params.get("name"), str)
                  and prompts(name) is not None):
                target = name
            else:
                target = None
            # The version (a str subclass) finds the shape kept under its string.
            shape = known.get((method, target, context.version, context.transport))
            if shape is None:
                shape = shapes.of(method, target, str(context.version), context.transport)
            attributes = shape.attributes.copy()
            if method in RESOURCE_METHODS and isinstance(uri := params.get("uri"), str):
                attributes["mcp.resource.uri"] = uri
            session = context.session
            if session is not None:  # its key: the id is the session's credential, and trace backends are shared
                attributes["mcp.session.id"] = session.key
            request_id = context.message.id
            if request_id is not None and context.transport != REST:  # (REST's id is the server's own)
                attributes["jsonrpc.request.id"] = str(request_id)
            meta = params.get("_meta")
            headers = context.trace_headers
            if headers is None and not (isinstance(meta, dict) and "traceparent" in meta):
                parent = links = None  # no trace context came with the request: a new trace
            else:
                parent, links = _parent(meta, headers)
            started = perf_counter()
            # Started, made current and ended here rather than with start_as_current_span: its two
            # generator-based context managers cost more than the span's own bookkeeping. Arguments
            # by position, in the API's order (name, context, kind, attributes, links, start_time,
            # record_exception, set_status_on_exception): keywords cost the call a dict's matching.
            span = start_span(shape.name, parent, server, attributes, links, None, False, False)
            current = in_context(span, parent)
            token = attach(current)
            context.slots[SPAN] = span
            error: str | None = None
            measured = shape.measured
            try:
                result = await call_next(request)
            except ProtocolError as exc:
                error = str(exc.code)
                span.set_attribute("rpc.response.status_code", error)
                span.set_status(Status(StatusCode.ERROR, exc.message))
                raise
            except BaseException as exc:
                error = _qualified(exc)
                span.record_exception(exc)
                span.set_status(Status(StatusCode.ERROR, str(exc) or error))
                raise
            else:
                try:
                    failed = method == "tools/call" and result.get("isError") is True
                except AttributeError:
                    return result  # not a result: the dispatcher names the middleware that answered it
                if failed:
                    error = TOOL_ERROR
                    span.set_status(Status(StatusCode.ERROR))
                elif method == "initialize" and isinstance(agreed := result.get("protocolVersion"), str):
                    # The version in force is the one initialize agreed on, not the request's.
                    measured = shapes.of(method, None, agreed, context.transport).measured
                    span.set_attribute("mcp.protocol.version", agreed)
                return result
            finally:
                if error is not None:
                    span.set_attribute("error.type", error)
                    measured = shapes.failed(measured, error)
                # In the span's context, named rather than looked up: the measurement's exemplar
                # names this span whatever a tool left current.
                record(perf_counter() - started, measured, current)
                span.end()
                detach(token)

        return tracing

    def session_ended(self, session: Session) -> None:
        """Record ``mcp.server.session.duration`` for a session that just ended."""
        attributes: dict[str, Any] = {"mcp.protocol.version": str(session.version)}
        attributes.update(_network(session.transport))
        self.session_duration.record(max(0.0, time.monotonic() - session.started), attributes)


def _recorder(histogram: metrics.Histogram) -> Callable[[float, dict[str, Any], otel_context.Context], None]:
    """``histogram.record`` taking the measurement's context as its third argument: the API's own
    from ``opentelemetry-api`` 1.28 on (the release that brought exemplars); before it (1.27, the
    ``otel`` extra's floor) a ``record`` that drops the context, which such an API cannot take."""
    record = histogram.record
    try:
        takes_context = "context" in inspect.signature(record).parameters
    except (TypeError, ValueError):  # a callable without a signature: take no chances
        takes_context = False
    if takes_context:
        return record
    return lambda amount, attributes, context: record(amount, attributes)


def _parent(meta: Any, headers: dict[str, str] | None) -> tuple[Any, list[Link] | None]:
    """The server span's parent context and its links: the client's context from ``_meta``,
    linking the HTTP request's when it differs; else the HTTP request's; else the current one."""
    carrier = carrier_from(meta) if isinstance(meta, dict) else None
    if carrier is None:
        return (propagate.extract(headers) if headers else None), None
    parent = propagate.extract(carrier)
    if not headers:
        return parent, None
    transport = trace.get_current_span(propagate.extract(headers)).get_span_context()
    mine = trace.get_current_span(parent).get_span_context()
    if transport.is_valid and transport != mine:
        return parent, [Link(transport)]
    return parent, None


def install(pipeline_wrap: Any, sessions: SessionStore, version: str,
            prompts: Callable[[str], object | None] | None = None) -> Telemetry:
    """Put the tracing layer outside every other layer (``pipeline_wrap(layer)``) and record the
    session metric when sessions end; ``prompts`` looks a prompt up by name. Returns the :class:`Telemetry`."""
    telemetry = Telemetry(version, prompts)
    pipeline_wrap(telemetry.layer())
    sessions.add_close_callback(telemetry.session_ended)
    return telemetry
