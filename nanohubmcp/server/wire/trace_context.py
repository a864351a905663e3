"""Trace context without cost: whether a server traces, the span of a request, child spans, and
the W3C carrier that takes a job's trace context to the executor that runs it.

Nothing here imports OpenTelemetry unless a span exists (the server traces this request) or a
carrier came with a job: with tracing off, or without the ``otel`` extra installed, serving a call
imports no ``opentelemetry`` module. The server span itself is made by the tracing layer of the
call pipeline (``nanohubmcp.server.telemetry``), which keeps it in the request's :data:`SPAN` slot;
the parts below it open their child spans with :func:`child`.

When is tracing on? ``MCPServer(tracing=...)``: ``True`` (on; needs ``opentelemetry-api``),
``False`` (off), ``"auto"`` (the default: on when the application has configured an OpenTelemetry
tracer provider — its own SDK set-up, or ``opentelemetry-instrument`` — by the time the server
starts serving; decided without importing anything when ``opentelemetry.trace`` was never imported). The
``NANOHUBMCP_TRACING`` environment variable (:data:`ACCEPTED`: ``1``/``true``/``on``/``yes``,
``0``/``false``/``off``/``no``, ``auto``)
decides when the argument is not given, then ``c.NanohubMCP.tracing`` in a notebook.

Source: OpenTelemetry semantic conventions for MCP (``docs/gen-ai/mcp.md``: context propagation in
``params._meta``); W3C Trace Context (``traceparent``, ``tracestate``) and W3C Baggage.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

from ...errors import ConfigurationError
from ...errors.told import Failure
from ...protocol.message_values import shown_value
from ...protocol.whole_numbers import text_number
from ...schema import CheckPending
from .request import RequestContext, Slot

ENV_VAR = "NANOHUBMCP_TRACING"
"""The environment variable deciding tracing when ``MCPServer(tracing=)`` is not given."""

STEP_ENV_VAR = "NANOHUBMCP_TRACING_STEP_MS"
"""The environment variable of :data:`STEP_MIN_SECONDS`, in milliseconds."""

CARRIER_KEYS = ("traceparent", "tracestate", "baggage")
"""The W3C keys of a trace context carrier (``params._meta``, HTTP headers, a job's payload)."""

INSTRUMENTATION = "nanohubmcp"
"""The instrumentation scope name of the server's tracer and meter."""

SPAN: Slot[Any] = Slot("trace span")
"""The server span of a traced request (an ``opentelemetry.trace.Span``); absent: not traced."""

Setting = Literal[True, False, "auto"]

NOT_TRACED = contextlib.nullcontext()
"""The context manager of an untraced request's child span or step (reusable: it holds no state);
a hot path that asked ``request.slots.get(SPAN)`` once uses it instead of :func:`step`."""

ON_WORDS = ("1", "true", "on", "yes")
"""The words of tracing on (any case), in :data:`ENV_VAR` or ``tracing=``; ``auto`` and :data:`OFF_WORDS` besides."""
OFF_WORDS = ("0", "false", "off", "no")
"""The words of tracing off (any case); :data:`ENV_VAR` set but empty is off too."""
ACCEPTED = f"{', '.join(ON_WORDS)} (on), {', '.join(OFF_WORDS)} (off) or auto"
"""What the setting accepts, as its error says it (the tracing page lists the same words)."""
_TRUE = frozenset(ON_WORDS)
_FALSE = frozenset((*OFF_WORDS, ""))


def resolve(value: bool | str | None, configured: bool | str | None = None) -> Setting:
    """The tracing setting in force: ``value`` (the argument), else ``$NANOHUBMCP_TRACING``, else
    ``configured`` (``c.NanohubMCP.tracing``), else ``"auto"``.

    Raises:
        ConfigurationError: not a boolean or one of the words above; or ``True`` while
            ``opentelemetry-api`` is not installed (``pip install 'nanohub-mcp[otel]'``).
    """
    for candidate, source in ((value, "tracing"), (os.environ.get(ENV_VAR), ENV_VAR), (configured, "tracing")):
        if candidate is None:
            continue
        setting = _parse(candidate, source)
        if setting is True and not _installed():
            error = ConfigurationError(
                f"{source}=true needs the OpenTelemetry API: pip install 'nanohub-mcp[otel]' "
                "(or leave tracing at 'auto', which traces when the application uses OpenTelemetry)"
            )
            error.variable = ENV_VAR if source == ENV_VAR else None
            raise error
        return setting
    return "auto"


def _installed() -> bool:
    import importlib.util  # (only for tracing=true: a start at "auto" never looks)

    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except ImportError:
        return False


def _parse(value: bool | str, source: str) -> Setting:
    if isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise ConfigurationError(f"{source} must be True, False or one of {ACCEPTED}, not {shown_value(value)}")
    word = value.strip().lower()
    if word == "auto":
        return "auto"
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    error = ConfigurationError(f"{source} must be one of {ACCEPTED}, not {value!r}")
    if source == ENV_VAR:
        error.variable = ENV_VAR  # (a script's MCPServer(...) says it in one line)
    raise error


def wanted(setting: Setting) -> bool:
    """Whether a server with ``setting`` traces, decided when it starts serving: ``"auto"`` is on
    when the application has configured a tracer provider (an SDK's, or ``opentelemetry-instrument``'s:
    anything but the API's default), which it cannot have done without importing
    ``opentelemetry.trace`` — so nothing is imported here when it has not. A library that merely
    imports the API (the ``mcp`` client does) does not turn tracing on."""
    if setting != "auto":
        return bool(setting)
    if "opentelemetry.trace" not in sys.modules:
        return False
    from opentelemetry import trace

    provider = trace.get_tracer_provider()
    return not isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider))


def current_trace_ids() -> tuple[str, str] | None:
    """``(trace_id, span_id)`` of the span current here (32 and 16 lowercase hex digits), or None
    when there is none — always None, at no cost, when the application never imported
    OpenTelemetry. Inside a traced tool it names the tool's run span."""
    if "opentelemetry.trace" not in sys.modules:
        return None
    from opentelemetry import trace

    span_context = trace.get_current_span().get_span_context()
    if not span_context.is_valid:
        return None
    return format(span_context.trace_id, "032x"), format(span_context.span_id, "016x")


def traced(request: RequestContext) -> bool:
    """Whether ``request`` has a server span (the server traces it)."""
    return request.get(SPAN) is not None


_TRACER: Any = None


def _tracer() -> Any:
    """The server's tracer, made once (the global provider's; a proxy until one is configured)."""
    global _TRACER
    if _TRACER is None:
        from opentelemetry import trace

        _TRACER = trace.get_tracer(INSTRUMENTATION)
    return _TRACER


Telling = Callable[[BaseException], Failure]
"""How a call tells an exception (``schema.secret_text.Telling``: a ``Secret`` argument's value hidden): what a
span records of one raised in it (its status, its ``exception`` event's message and stacktrace)."""


def child(request: RequestContext, name: str, attributes: Mapping[str, Any] | None = None,
          tell: Telling | None = None) -> Any:
    """A context manager: a child span ``name`` of the request's current span (kind INTERNAL, made
    current while it runs; an exception marks it failed, told by ``tell`` when given) when the request
    is traced, else one that does nothing."""
    if request.get(SPAN) is None:
        return NOT_TRACED
    if tell is None:
        return _tracer().start_as_current_span(name, attributes=attributes)
    return _told_child(name, attributes, tell)


@contextlib.contextmanager
def _told_child(name: str, attributes: Mapping[str, Any] | None, tell: Telling, context: Any = None) -> Iterator[Any]:
    # The SDK's own recording would write str(exc) and the traceback as they are.
    with _tracer().start_as_current_span(name, context=context, attributes=attributes, record_exception=False,
                                         set_status_on_exception=False) as span:
        try:
            yield span
        except Exception as exc:  # (as the SDK: a cancellation is no failure of the span)
            told = tell(exc)
            failed(span, told, f"{type(exc).__name__}: {told.text}")
            raise


def failed(span: Any, told: Failure, description: str) -> None:
    """Mark ``span`` failed by ``told``'s exception: an ERROR status with ``description`` and the ``exception``
    event of the semantic conventions (``exception.type``, ``.message``, ``.stacktrace``) with ``told``'s texts."""
    from opentelemetry.trace import Status, StatusCode

    span.add_event("exception", {"exception.type": told.type_name, "exception.message": told.text,
                                 "exception.stacktrace": told.frames, "exception.escaped": "False"})
    span.set_status(Status(StatusCode.ERROR, description))


def _step_threshold(value: str | None) -> float | None:
    if value is None or not value.strip():
        return None
    milliseconds = text_number(value)  # (ASCII digits, no "_": every setting's number)
    if milliseconds is None or not 0 <= milliseconds < math.inf:  # read at import: a warning, not an import that fails
        logging.getLogger(__name__).warning(
            "%s=%r is not a number of milliseconds (0 or more): no step spans", STEP_ENV_VAR, value)
        return None
    return milliseconds / 1000


STEP_MIN_SECONDS: float | None = _step_threshold(os.environ.get(STEP_ENV_VAR))
"""Whether the steps of a traced call (argument validation, the run of a tool called directly,
result conversion) become child spans of its SERVER span: ``None`` (the default: never — the SERVER
span alone, since an SDK span costs more CPU than validating the arguments of most tools, or running
``add``), else a step becomes a span when it took at least this many seconds, or failed.
``NANOHUBMCP_TRACING_STEP_MS`` sets it in milliseconds (``0``: every step). A job's run is a span
whatever this says: it carries the trace to the executor."""


def steps_traced(request: RequestContext) -> bool:
    """Whether the steps of ``request`` are timed as possible child spans (it is traced and
    :data:`STEP_MIN_SECONDS` is set)."""
    return STEP_MIN_SECONDS is not None and request.get(SPAN) is not None


class _Step:
    """Times one step of a traced call; on exit records it as a child span of the span current at
    its start, with its real start and end times, when it was slow enough or failed (told by ``tell``)."""

    __slots__ = ("attributes", "context", "name", "started", "tell")

    def __init__(self, name: str, attributes: Mapping[str, Any] | None, tell: Telling | None = None) -> None:
        self.name = name
        self.attributes = attributes
        self.tell = tell

    def __enter__(self) -> _Step:
        from opentelemetry import context

        self.context = context.get_current()
        self.started = time.time_ns()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        ended = time.time_ns()
        if exc is None and ended - self.started < (STEP_MIN_SECONDS or 0) * 1e9:
            return
        if isinstance(exc, CheckPending):  # not a failure: the check is made again once it loaded (its own span)
            return
        span = _tracer().start_span(
            self.name, context=self.context, attributes=self.attributes, start_time=self.started
        )
        if exc is not None:
            told = self.tell(exc) if self.tell is not None else Failure(exc)
            failed(span, told, told.text or type(exc).__name__)
        span.end(end_time=ended)


def step(request: RequestContext, name: str, attributes: Mapping[str, Any] | None = None,
         tell: Telling | None = None) -> Any:
    """A context manager timing a quick step of a traced request (see :data:`STEP_MIN_SECONDS`): a
    child span ``name`` when it took long enough or raised (told by ``tell`` when given); nothing for a
    request not traced, or when steps are not traced (the default)."""
    if not steps_traced(request):
        return NOT_TRACED
    return _Step(name, attributes, tell)


def capture(request: RequestContext) -> dict[str, str] | None:
    """The W3C carrier (``traceparent``, ``tracestate``, ``baggage``) of the context current here,
    for a traced request (the global propagator writes it); None when the request is not traced.
    A job's payload carries it to the executor that runs the job (see :func:`continued`)."""
    if request.get(SPAN) is None:
        return None
    from opentelemetry import propagate

    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier or None


def continued(carrier: Mapping[str, str] | None, name: str, attributes: Mapping[str, Any] | None = None,
              tell: Telling | None = None) -> Any:
    """A context manager, where a job runs (a worker process, a Dask worker, a batch job): a span
    ``name`` continuing the trace ``carrier`` (from :func:`capture`) came from, current while the
    job's function runs (an exception marks it failed, told by ``tell`` when given). Without a tracer
    provider configured there it still makes the remote parent current, so :func:`current_trace_ids`
    names the server's trace. Does nothing (and imports nothing) when ``carrier`` is empty."""
    if not carrier:
        return NOT_TRACED
    from opentelemetry import propagate

    parent = propagate.extract(dict(carrier))
    if tell is None:
        return _tracer().start_as_current_span(name, context=parent, attributes=attributes)
    return _told_child(name, attributes, tell, parent)


def carrier_from(values: Mapping[str, Any] | None) -> dict[str, str] | None:
    """The W3C keys of ``values`` (a request's ``params._meta``, or HTTP headers) whose values are
    strings, or None when there is no ``traceparent``."""
    if not values or not isinstance(values.get("traceparent"), str):
        return None
    return {key: value for key in CARRIER_KEYS if isinstance(value := values.get(key), str)}
