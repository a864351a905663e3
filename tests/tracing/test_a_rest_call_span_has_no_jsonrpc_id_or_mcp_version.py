"""A REST call (``POST /tools/<name>``) is traced as ``tools/call <tool>`` with the conventions' attributes a
REST request has: no ``jsonrpc.request.id`` (it sent no JSON-RPC id) and no ``mcp.protocol.version`` (it
negotiated none), on its span and on its ``mcp.server.operation.duration`` point; an MCP call over HTTP
keeps both.

Trial56 F11: the span carried ``jsonrpc.request.id: 'rest-139882443982032'`` (the server's own id, a new
value per handler: high cardinality for a backend grouping by it) and ``mcp.protocol.version``. Fails before.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import otel_sdk
import pytest
from support import serve
from traced_app import server

pytestmark = pytest.mark.timeout(90)

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
LEFT_OUT = ("jsonrpc.request.id", "mcp.protocol.version")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(server) as base:
        yield base


def test_a_rest_calls_span_and_metric_carry_neither(url: str) -> None:
    otel_sdk.clear()
    answer = httpx2.post(url + "tools/add", json={"a": 2, "b": 3}, headers={"traceparent": TRACEPARENT}, timeout=10)
    assert answer.status_code == 200
    spans = [s for s in otel_sdk.finished() if s["name"] == "tools/call add" and s["kind"] == "SERVER"]
    assert len(spans) == 1
    attributes = spans[0]["attributes"]
    assert spans[0]["trace_id"] == TRACE_ID
    assert attributes == {"mcp.method.name": "tools/call", "gen_ai.tool.name": "add",
                          "gen_ai.operation.name": "execute_tool", "network.transport": "tcp",
                          "network.protocol.name": "http"}
    rest_points = [attrs for attrs, _count, _sum in otel_sdk.points("mcp.server.operation.duration")
                   if attrs.get("gen_ai.tool.name") == "add" and "mcp.protocol.version" not in attrs]
    assert rest_points


def test_an_mcp_call_over_http_keeps_both(url: str) -> None:
    otel_sdk.clear()
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 1}}}
    assert httpx2.post(url + "mcp", json=body, timeout=10).status_code == 200
    span = next(s for s in otel_sdk.finished() if s["name"] == "tools/call add" and s["kind"] == "SERVER")
    assert span["attributes"]["jsonrpc.request.id"] == "7"
    assert span["attributes"]["mcp.protocol.version"]  # (a sessionless request: the version it is read at)
