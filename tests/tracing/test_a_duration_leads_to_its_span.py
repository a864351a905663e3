"""A request's ``mcp.server.operation.duration`` measurement is recorded in its SERVER span's
context: the SDK keeps it as the histogram point's exemplar, which is how a slow bucket leads to
the trace that made it — also when the tool left another span current (the layer names the
span's context instead of reading whatever is current when the call ends)."""

from __future__ import annotations

from typing import Any

import otel_sdk
import pytest
from opentelemetry import context, trace
from support import MemoryClient

from nanohubmcp import MCPServer

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
