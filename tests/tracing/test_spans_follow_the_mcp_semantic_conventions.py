"""One SERVER span per request, named, attributed and parented as the OpenTelemetry semantic
conventions for MCP say (``docs/gen-ai/mcp.md``), for ``tools/call``, ``resources/read`` and
``prompts/get``: in the handshake era (the official client over Streamable HTTP, whose own CLIENT
spans put the trace context in ``params._meta``), in the 2026-07-28 era, over stdio (both eras),
and from the W3C ``traceparent`` header of an HTTP request; child spans for argument validation,
the tool's run and result conversion (when steps are traced); errors with ``error.type`` and an ERROR status."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import otel_sdk
import pytest
from opentelemetry import trace
from support import mcp_client, serve
from traced_app import server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"
MODERN = "2026-07-28"
HTTP = {"network.transport": "tcp", "network.protocol.name": "http"}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(server) as base:
        yield base


@pytest.fixture(autouse=True)
def _no_spans_yet() -> None:
    otel_sdk.clear()


def server_spans(spans: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [s for s in spans if s["kind"] == "SERVER" and s["attributes"].get("mcp.method.name") == method]


def one(spans: list[dict[str, Any]], name: str) -> dict[str, Any]:
    found = [s for s in spans if s["name"] == name]
    assert len(found) == 1, (name, [s["name"] for s in spans])
    return found[0]


def expect_calls(spans: list[dict[str, Any]], common: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The conventions' shape of the three traced requests (and a failing tool); returns the server
    spans by name. ``common``: the attributes every request of the era and transport carries."""
    add = one(spans, "tools/call add")
    read = one(spans, "resources/read")
    prompt = one(spans, "prompts/get greet")
    failed = one(spans, "tools/call fails")
    for span in (add, read, prompt, failed):
        assert span["kind"] == "SERVER"
        assert span["parent_remote"] is True  # the client's span, across the wire
        request_id = span["attributes"]["jsonrpc.request.id"]
        assert isinstance(request_id, str)
        assert request_id
    tool = {"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", **common}
    assert without_id(add) == {**tool, "gen_ai.tool.name": "add"}
    assert (add["status"], failed["status"]) == ("UNSET", "ERROR")
    assert without_id(failed) == {**tool, "gen_ai.tool.name": "fails", "error.type": "tool_error"}
    assert without_id(read) == {"mcp.method.name": "resources/read", "mcp.resource.uri": "data://greeting", **common}
    assert without_id(prompt) == {"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "greet", **common}
    # The tool's own steps are children of its server span, in the same trace.
    for step in ("validate_arguments add", "execute_tool add", "convert_result add"):
        child = one(spans, step)
        assert (child["kind"], child["parent_id"], child["trace_id"]) == ("INTERNAL", add["span_id"], add["trace_id"])
        assert child["attributes"]["gen_ai.tool.name"] == "add"
    return {"add": add, "read": read, "prompt": prompt, "fails": failed}


def without_id(span: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in span["attributes"].items() if k != "jsonrpc.request.id"}


async def test_handshake_era_over_streamable_http_continues_the_official_clients_spans(url: str) -> None:
    from mcp.shared.exceptions import MCPError

    with trace.get_tracer("assistant").start_as_current_span("assistant turn") as turn:
        async with mcp_client(url + "mcp") as session:
            assert (await session.call_tool("add", {"a": 1, "b": 2})).content[0].text == "3"
            await session.read_resource("data://greeting")
            await session.get_prompt("greet", {"name": "Ada"})
            assert (await session.call_tool("fails", {})).is_error
            with pytest.raises(MCPError):
                await session.call_tool("nope", {})
    spans = otel_sdk.finished()
    session_ids = {
        s["attributes"].get("mcp.session.id")
        for s in spans
        if s["kind"] == "SERVER" and s["attributes"]["mcp.method.name"] != "initialize"
    }
    assert len(session_ids) == 1
    assert None not in session_ids
    traced = expect_calls(spans, {"mcp.protocol.version": "2025-11-25", "mcp.session.id": session_ids.pop(), **HTTP})
    turn_id = otel_sdk.hex_id(turn.get_span_context().trace_id, 32)
    clients = {s["span_id"]: s for s in spans if s["kind"] == "CLIENT"}
    for name, span in traced.items():
        parent = clients[span["parent_id"]]  # the client's span of that very request
        assert span["trace_id"] == parent["trace_id"] == turn_id, name
        assert parent["attributes"]["jsonrpc.request.id"] == span["attributes"]["jsonrpc.request.id"]
    unknown = one(spans, "tools/call")  # a name the server does not know is not the span's (client input)
    assert "gen_ai.tool.name" not in unknown["attributes"]
    assert unknown["status"] == "ERROR"
    assert unknown["description"] == "Unknown tool: nope"
    assert unknown["attributes"]["error.type"] == unknown["attributes"]["rpc.response.status_code"] == "-32602"
    initialize = one(spans, "initialize")["attributes"]
    assert "mcp.session.id" not in initialize  # the session starts with its answer
    assert initialize["mcp.protocol.version"] == "2025-11-25"  # the version it agreed on


def test_unknown_tool_and_prompt_names_never_become_span_names_or_metric_series(url: str) -> None:
    # A trial finding: 500 calls naming unknown 100 KB tools grew the process by 100 MB (one metric series
    # and span name per client string, kept for the process's life and exported every interval).
    def series() -> int:
        return len(otel_sdk.points("mcp.server.operation.duration"))

    for n in range(3):  # the shapes of an unknown tool's and prompt's failure are made once
        for method, name in (("tools/call", f"nope-{n}-" + "x" * 1000), ("prompts/get", f"nope-{n}-" + "y" * 1000)):
            body = {"jsonrpc": "2.0", "id": n, "method": method, "params": {"name": name, "arguments": {}}}
            answer = httpx2.post(url + "mcp", json=body, timeout=10).json()
            assert answer["error"]["code"] == -32602, answer
        if n == 0:
            before = series()
    assert series() == before
    for span in otel_sdk.finished():
        assert "nope" not in span["name"]
        assert all("nope" not in str(value) for key, value in span["attributes"].items() if key.startswith("gen_ai"))
    for attributes, _, _ in otel_sdk.points("mcp.server.operation.duration"):
        assert all("nope" not in str(value) for value in attributes.values())


def modern(url: str, method: str, params: dict[str, Any], name: str, **headers: str) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "traceparent": TRACEPARENT,
        "tracestate": "rojo=00f067aa0ba902b7",
    }
    body = {"jsonrpc": "2.0", "id": "r-1", "method": method, "params": {**params, "_meta": meta}}
    sent = {
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
        "Mcp-Name": name,
        "Accept": "application/json",
        **headers,
    }
    answer: dict[str, Any] = httpx2.post(url + "mcp", json=body, headers=sent, timeout=10).json()
    assert "result" in answer, answer
    return answer


def test_2026_07_28_era_over_http_takes_its_parent_from_params_meta(url: str) -> None:
    modern(url, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, "add")
    modern(url, "resources/read", {"uri": "data://greeting"}, "data://greeting")
    modern(url, "prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}, "greet")
    modern(url, "tools/call", {"name": "fails", "arguments": {}}, "fails")
    spans = otel_sdk.finished()
    traced = expect_calls(spans, {"mcp.protocol.version": MODERN, **HTTP})  # no session in this era
    for span in traced.values():
        assert (span["trace_id"], span["parent_id"], span["attributes"]["jsonrpc.request.id"]) == (
            TRACE_ID,
            PARENT_ID,
            "r-1",
        )


def test_the_http_traceparent_header_parents_a_request_without_one_in_meta(url: str) -> None:
    body = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 2}}}
    answer = httpx2.post(url + "mcp", json=body, headers={"traceparent": TRACEPARENT}, timeout=10).json()
    assert answer["result"]["content"][0]["text"] == "4"
    span = one(otel_sdk.finished(), "tools/call add")
    assert (span["trace_id"], span["parent_id"], span["links"]) == (TRACE_ID, PARENT_ID, [])
    # Both: params._meta is the parent (the MCP request's own context), the HTTP one a link.
    otel_sdk.clear()
    other = "0af7651916cd43dd8448eb211c80319c"
    body["params"]["_meta"] = {"traceparent": f"00-{other}-b7ad6b7169203331-01"}
    httpx2.post(url + "mcp", json=body, headers={"traceparent": TRACEPARENT}, timeout=10)
    span = one(otel_sdk.finished(), "tools/call add")
    assert (span["trace_id"], span["parent_id"], span["links"]) == (other, "b7ad6b7169203331", [PARENT_ID])


def test_each_member_of_a_batch_is_parented_on_the_batchs_traceparent_header(url: str) -> None:
    calls = [
        {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "add", "arguments": {"a": n, "b": 1}}}
        for n in (1, 2)
    ]
    session = httpx2.post(
        url + "mcp",
        json={
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        timeout=10,
    )
    headers = {"Mcp-Session-Id": session.headers["Mcp-Session-Id"], "traceparent": TRACEPARENT}
    answers = httpx2.post(url + "mcp", json=calls, headers=headers, timeout=10).json()
    assert [a["result"]["content"][0]["text"] for a in answers] == ["2", "3"]
    spans = [s for s in otel_sdk.finished() if s["name"] == "tools/call add"]
    assert [(s["trace_id"], s["parent_id"], s["attributes"]["jsonrpc.request.id"]) for s in spans] == [
        (TRACE_ID, PARENT_ID, "1"),
        (TRACE_ID, PARENT_ID, "2"),
    ]


def test_a_request_without_trace_context_starts_a_trace_and_a_malformed_one_is_ignored(url: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 6,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 1}, "_meta": {"traceparent": 42}},
    }
    answer = httpx2.post(url + "mcp", json=body, headers={"traceparent": "00-not-a-trace"}, timeout=10).json()
    assert answer["result"]["content"][0]["text"] == "2"
    span = one(otel_sdk.finished(), "tools/call add")
    assert span["parent_id"] is None
    assert span["trace_id"] != TRACE_ID


def test_the_tool_sees_its_calls_server_span_as_the_current_one(url: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 8,
        "method": "tools/call",
        "params": {"name": "ids", "arguments": {}, "_meta": {"traceparent": TRACEPARENT}},
    }
    answer = httpx2.post(url + "mcp", json=body, timeout=10).json()
    trace_id, span_id = json.loads(answer["result"]["content"][0]["text"])  # 2025-03-26: text only
    call = one(otel_sdk.finished(), "tools/call ids")
    assert (trace_id, span_id) == (TRACE_ID, call["span_id"])


def test_steps_are_spans_only_when_asked_and_then_past_the_threshold(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """By default (no NANOHUBMCP_TRACING_STEP_MS) a call leaves its SERVER span alone, however long
    its steps; with a threshold, a step past it is a span with its real start and end."""
    from nanohubmcp.server.wire import trace_context

    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 20}}}
    for threshold in (None, 60.0):  # the default; a threshold no step reaches
        monkeypatch.setattr(trace_context, "STEP_MIN_SECONDS", threshold)
        httpx2.post(url + "mcp", json=body, timeout=10).raise_for_status()
        assert [s["name"] for s in otel_sdk.finished()] == ["tools/call slow"], threshold
        otel_sdk.clear()
    monkeypatch.setattr(trace_context, "STEP_MIN_SECONDS", 0.01)
    httpx2.post(url + "mcp", json=body, timeout=10).raise_for_status()
    call = one(otel_sdk.finished(), "tools/call slow")
    run = one(otel_sdk.finished(), "execute_tool slow")
    assert sorted(s["name"] for s in otel_sdk.finished()) == ["execute_tool slow", "tools/call slow"]
    assert run["parent_id"] == call["span_id"]
    assert run["end_ns"] - run["start_ns"] >= 20_000_000  # a step's span has its real start and end
    assert call["start_ns"] <= run["start_ns"] <= run["end_ns"] <= call["end_ns"]


def test_the_step_threshold_is_read_in_milliseconds() -> None:
    from nanohubmcp.server.wire.trace_context import _step_threshold

    assert [_step_threshold(v) for v in (None, "", " ", "0", "-0", "2.5")] == [None, None, None, 0.0, 0.0, 0.0025]


def test_a_step_threshold_that_is_not_a_number_traces_no_steps(caplog: pytest.LogCaptureFixture) -> None:
    from nanohubmcp.server.wire.trace_context import _step_threshold

    for value in ("1ms", "-1", "nan", "inf", "-inf"):
        assert _step_threshold(value) is None, value
        assert f"NANOHUBMCP_TRACING_STEP_MS={value!r} is not a number of milliseconds" in caplog.text


# -- stdio: the server in another process, its spans read through the server itself -------------
async def test_stdio_handshake_and_2026_07_28_eras() -> None:
    from pathlib import Path

    from support import fastmcp_client, official_client, run_command

    app = run_command(Path(__file__).resolve().parent / "traced_app.py")
    with trace.get_tracer("assistant").start_as_current_span("assistant turn"):
        async with official_client(app) as session:
            await session.call_tool("add", {"a": 1, "b": 2})
            await session.read_resource("data://greeting")
            await session.get_prompt("greet", {"name": "Ada"})
            await session.call_tool("fails", {})
            recorded = json.loads((await session.call_tool("spans", {})).content[0].text)
    mine = {s["span_id"]: s for s in otel_sdk.finished() if s["kind"] == "CLIENT"}
    session_ids = {s["attributes"].get("mcp.session.id") for s in server_spans(recorded, "tools/call")}
    assert len(session_ids) == 1
    assert None not in session_ids
    traced = expect_calls(
        recorded,
        {"mcp.protocol.version": "2025-11-25", "mcp.session.id": session_ids.pop(), "network.transport": "pipe"},
    )
    for span in traced.values():
        assert mine[span["parent_id"]]["trace_id"] == span["trace_id"]  # this process's client span
    otel_sdk.clear()
    with trace.get_tracer("assistant").start_as_current_span("assistant turn"):
        async with fastmcp_client(app) as client:  # fastmcp speaks 2026-07-28 over stdio
            await client.call_tool("add", {"a": 1, "b": 2})
            await client.read_resource("data://greeting")
            await client.get_prompt("greet", {"name": "Ada"})
            await client.call_tool("fails", {}, raise_on_error=False)
            recorded = json.loads((await client.call_tool("spans", {})).content[0].text)
    mine = {s["span_id"]: s for s in otel_sdk.finished() if s["kind"] == "CLIENT"}
    traced = expect_calls(recorded, {"mcp.protocol.version": MODERN, "network.transport": "pipe"})
    for span in traced.values():
        assert mine[span["parent_id"]]["trace_id"] == span["trace_id"]
