"""A request's ``mcp.server.operation.duration`` measurement is recorded in its SERVER span's
context: the SDK keeps it as the histogram point's exemplar, which is how a slow bucket leads to
the trace that made it — also when the tool left another span current (the layer names the
span's context instead of reading whatever is current when the call ends)."""

from __future__ import annotations

from typing import Any

import otel_sdk
import pytest
from opentelemetry import context, trace

from nanohubmcp import MCPServer
from nanohubmcp.testing import MemoryClient

pytestmark = pytest.mark.anyio

OPERATION = "mcp.server.operation.duration"


async def test_each_duration_names_its_calls_server_span_as_exemplar() -> None:
    server = MCPServer("exemplars", tracing=True)
    leaked: list[Any] = []

    @server.tool()
    async def exemplar_quiet(n: int) -> int:
        """Returns n."""
        return n

    @server.tool()
    async def exemplar_leaky(n: int) -> int:
        """Returns n, leaving a span of its own current (a tool's bug the measurement must survive)."""
        span = trace.get_tracer("a-tool").start_span("left open")
        leaked.append(context.attach(trace.set_span_in_context(span)))
        span.end()
        return n

    otel_sdk.clear()
    async with MemoryClient(server) as client:
        for tool in ("exemplar_quiet", "exemplar_leaky"):
            await client.call_tool(tool, {"n": 1})
    spans = {s["name"]: s for s in otel_sdk.finished() if s["kind"] == "SERVER"}
    collected = otel_sdk.exemplars(OPERATION)  # once: a collection empties the exemplar reservoirs
    for tool in ("exemplar_quiet", "exemplar_leaky"):
        span = spans[f"tools/call {tool}"]
        points = [ids for attributes, ids in collected if attributes.get("gen_ai.tool.name") == tool]
        assert points == [[(span["trace_id"], span["span_id"])]], tool
    assert leaked  # the leaky tool ran on the loop, in the call's context


class _Histogram127:
    """A histogram as ``opentelemetry-api`` 1.27 (the ``otel`` extra's floor) has it: ``record``
    takes no context (the API added it in 1.28, with exemplars)."""

    def __init__(self) -> None:
        self.recorded: list[tuple[float, dict[str, Any]]] = []

    def record(self, amount: float, attributes: dict[str, Any] | None = None) -> None:
        self.recorded.append((amount, dict(attributes or {})))


class _Meter127:
    def __init__(self) -> None:
        self.histograms: dict[str, _Histogram127] = {}

    def create_histogram(self, name: str, **_: Any) -> _Histogram127:
        return self.histograms.setdefault(name, _Histogram127())


async def test_an_api_whose_record_takes_no_context_still_gets_every_duration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from opentelemetry import metrics

    meter = _Meter127()
    monkeypatch.setattr(metrics, "get_meter", lambda *_, **__: meter)
    server = MCPServer("api-1-27", tracing=True)

    @server.tool()
    async def exemplar_old_api(n: int) -> int:
        """Returns n."""
        return n

    async with MemoryClient(server) as client:
        assert (await client.call_tool("exemplar_old_api", {"n": 3}))["content"][0]["text"] == "3"
    recorded = meter.histograms[OPERATION].recorded
    assert [attributes.get("gen_ai.tool.name") for _, attributes in recorded if
            attributes["mcp.method.name"] == "tools/call"] == ["exemplar_old_api"]
    assert all(amount >= 0 for amount, _ in recorded)
    server.core.close()
