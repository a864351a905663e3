"""The OpenTelemetry SDK set up the way an application does it, once per process: a tracer provider
with an in-memory span exporter and a meter provider with an in-memory metric reader, both global.

The tracing tests (and ``traced_app.py``, the server they run over stdio) import this; the server
under test only emits through the API.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

EXPORTER = InMemorySpanExporter()
READER = InMemoryMetricReader()


def _configure() -> None:
    if isinstance(trace.get_tracer_provider(), TracerProvider):
        return
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[READER]))


_configure()


def hex_id(number: int, digits: int) -> str:
    return format(number, f"0{digits}x")


def described(span: ReadableSpan) -> dict[str, Any]:
    """A span as plain data (JSON-able): what the tests compare."""
    context = span.get_span_context()
    assert context is not None
    return {
        "name": span.name,
        "kind": span.kind.name,
        "trace_id": hex_id(context.trace_id, 32),
        "span_id": hex_id(context.span_id, 16),
        "parent_id": hex_id(span.parent.span_id, 16) if span.parent is not None else None,
        "parent_remote": bool(span.parent is not None and span.parent.is_remote),
        "attributes": dict(span.attributes or {}),
        "status": span.status.status_code.name,
        "description": span.status.description,
        "links": [hex_id(link.context.span_id, 16) for link in span.links],
        "start_ns": span.start_time,
        "end_ns": span.end_time,
    }


def finished() -> list[dict[str, Any]]:
    """Every span ended since the last :func:`clear`, as plain data, in the order they ended."""
    return [described(span) for span in EXPORTER.get_finished_spans()]


def clear() -> None:
    EXPORTER.clear()


def points(name: str) -> list[tuple[dict[str, Any], int, float]]:
    """The data points of the histogram ``name`` collected now: (attributes, count, sum)."""
    found: list[tuple[dict[str, Any], int, float]] = []
    data = READER.get_metrics_data()
    for resource in data.resource_metrics if data is not None else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == name:
                    found.extend((dict(p.attributes or {}), p.count, p.sum) for p in _points(metric))
    return found


def _points(metric: Any) -> Iterable[Any]:
    return metric.data.data_points  # type: ignore[no-any-return]


def unit_of(name: str) -> str | None:
    data = READER.get_metrics_data()
    for resource in data.resource_metrics if data is not None else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == name:
                    return str(metric.unit)
    return None


def exemplars(name: str) -> list[tuple[dict[str, Any], list[tuple[str, str]]]]:
    """The data points of the histogram ``name`` collected now: (attributes, [(trace id, span id)
    of each exemplar, in hex]). A collection empties the SDK's exemplar reservoirs: call it once."""
    found: list[tuple[dict[str, Any], list[tuple[str, str]]]] = []
    data = READER.get_metrics_data()
    for resource in data.resource_metrics if data is not None else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == name:
                    found.extend(
                        (dict(p.attributes or {}),
                         [(hex_id(e.trace_id, 32), hex_id(e.span_id, 16)) for e in p.exemplars if e.span_id])
                        for p in _points(metric)
                    )
    return found
