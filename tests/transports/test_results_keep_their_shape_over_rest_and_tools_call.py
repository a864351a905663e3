"""Results over ``tools/call`` and ``POST /tools/<name>``: output schemas are enforced on both
paths and in every protocol version, NaN/±Infinity become ``null`` (strict JSON everywhere),
and async tools answer 202 over REST with a job handle that ``get_job_result`` resolves.

Sources: MCP 2025-06-18+, Server § Tools § Output schema / Structured content; RFC 8259 § 6
(NaN and Infinity are not JSON: they become null); the REST answers ``transports/rest.py`` documents.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from raw_http import Http, Reply
from support import mcp_client, serve, without_provenance

from nanohubmcp import MCPServer

SUM = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}
HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
STRUCTURED_VERSIONS = ["2025-06-18", "2025-11-25"]  # structuredContent exists from 2025-06-18 on


def build() -> MCPServer:
    server = MCPServer("results")

    @server.tool(output_schema=SUM)
    def typed_sum(a: int, b: int) -> dict:
        """Add two integers; the result is held to SUM."""
        return {"sum": a + b}

    @server.tool(output_schema=SUM)
    def broken_sum(a: int, b: int) -> dict:
        """Claims SUM but returns a string."""
        return {"sum": str(a + b)}

    @server.tool()
    def not_finite() -> dict:
        """NaN and infinities, nested too."""
        return {"mean": math.nan, "high": math.inf, "low": -math.inf, "series": [1.5, math.nan]}

    @server.resource("data://not-finite", mime_type="application/json")
    def not_finite_resource() -> dict:
        return {"value": math.nan, "ok": 1}

    @server.tool()
    def add_floats(a: float, b: float) -> float:
        """Add two floats."""
        return a + b

    @server.tool()
    def squares(n: int) -> list:
        """A plain list."""
        return [i * i for i in range(n)]

    @server.tool()
    def word() -> str:
        """Text that looks like a list."""
        return "[1, 2]"

    @server.async_tool()
    def slow_square(x: float) -> dict:
        """Square x after a short wait."""
        time.sleep(0.1)
        return {"square": x * x}

    @server.async_tool()
    def slow_failure(reason: str) -> dict:
        """Fail after a short wait."""
        time.sleep(0.05)
        raise ValueError(reason)

    return server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(build()) as base:
        yield base


@pytest.fixture
def http(url: str) -> Iterator[Http]:
    with Http(url) as connection:
        yield connection


def strict(raw: bytes) -> Any:
    """Decode JSON, refusing the NaN/Infinity literals strict JSON does not have."""
    def refuse(token: str) -> Any:
        raise AssertionError(f"non-standard JSON literal {token} in {raw[:200]!r}")

    return json.loads(raw, parse_constant=refuse)


def session(http: Http, version: str) -> dict[str, str]:
    """Initialize a Streamable HTTP session; returns the headers that use it."""
    reply = http.rpc("initialize", {"protocolVersion": version, "capabilities": {}}, path="/mcp")
    assert reply.json["result"]["protocolVersion"] == version
    headers = {"Mcp-Session-Id": reply.header("Mcp-Session-Id"), "MCP-Protocol-Version": version}
    http.post("/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    return headers


def call(http: Http, headers: dict[str, str] | None, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``tools/call`` in a session (``headers``) or sessionless on ``POST /`` (None)."""
    params = {"name": name, "arguments": arguments}
    if headers is None:
        reply = http.rpc("tools/call", params, id=7)
    else:
        reply = http.rpc("tools/call", params, id=7, path="/mcp", headers=headers)
    assert reply.status == 200
    body = strict(reply.raw)
    assert "result" in body, body
    return body["result"]


# -- output schema ---------------------------------------------------------------------------
@pytest.mark.parametrize("version", STRUCTURED_VERSIONS)
def test_a_conforming_result_is_structured_content_and_json_text(http: Http, version: str) -> None:
    result = call(http, session(http, version), "typed_sum", {"a": 2, "b": 3})
    assert without_provenance(result) == {"content": [{"type": "text", "text": '{"sum":5}'}], "isError": False,
                                          "structuredContent": {"sum": 5}}
    tools = http.rpc("tools/list", path="/mcp", headers=session(http, version)).json["result"]["tools"]
    assert {t["name"]: t.get("outputSchema") for t in tools}["typed_sum"] == SUM


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", None],
                         ids=["2024-11-05", "2025-03-26", "sessionless"])
def test_output_schema_tools_work_before_structured_content_existed(http: Http, version: str | None) -> None:
    """Before 2025-06-18 there is no structuredContent on the wire; the value is still checked
    against the schema and, when it conforms, sent as its JSON text (not as an error)."""
    headers = session(http, version) if version else None
    result = call(http, headers, "typed_sum", {"a": 2, "b": 3})
    assert result["isError"] is False, result
    assert json.loads(result["content"][0]["text"]) == {"sum": 5}
    assert "structuredContent" not in result


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, None], ids=[*HANDSHAKE_VERSIONS, "sessionless"])
def test_a_result_that_breaks_the_output_schema_is_a_tool_error(http: Http, version: str | None) -> None:
    headers = session(http, version) if version else None
    result = call(http, headers, "broken_sum", {"a": 2, "b": 3})
    assert result["isError"] is True
    assert "structuredContent" not in result
    text = result["content"][0]["text"]
    assert "broken_sum" in text
    assert "output schema" in text
    assert "is not of type \"integer\"" in text


def test_rest_returns_a_conforming_result_as_the_body(http: Http) -> None:
    reply = http.post("/tools/typed_sum", {"a": 2, "b": 3})
    assert (reply.status, strict(reply.raw)) == (200, {"sum": 5})


def test_rest_answers_a_list_as_data_like_an_array(http: Http) -> None:
    """One rule: a list result is ``{"result": [...]}`` as JSON, as an array's is (it was JSON text);
    text stays text. tools/call answers a list with its JSON text and, as for an array,
    ``structuredContent: {"result": [...]}`` (trial25 F1: it had the text alone)."""
    reply = http.post("/tools/squares", {"n": 4})
    assert (reply.status, strict(reply.raw)) == (200, {"result": [0, 1, 4, 9]})
    reply = http.post("/tools/word", {})
    assert (reply.status, strict(reply.raw)) == (200, {"result": "[1, 2]"})
    result = call(http, session(http, "2025-11-25"), "squares", {"n": 3})
    assert result["structuredContent"] == {"result": [0, 1, 4]}
    assert result["content"] == [{"type": "text", "text": "[0,1,4]"}]


def test_rest_refuses_a_result_that_breaks_the_output_schema(http: Http) -> None:
    reply = http.post("/tools/broken_sum", {"a": 2, "b": 3})
    assert reply.status == 500
    error = strict(reply.raw)["error"]
    assert "output schema" in error
    assert "is not of type \"integer\"" in error


@pytest.mark.anyio
async def test_the_official_client_accepts_structured_results_and_sees_breaches(url: str) -> None:
    with anyio.fail_after(20):
        async with mcp_client(url + "mcp") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["typed_sum"].output_schema == SUM
            good = await client.call_tool("typed_sum", {"a": 20, "b": 22})
            bad = await client.call_tool("broken_sum", {"a": 1, "b": 1})
    assert good.is_error is False
    assert good.structured_content == {"sum": 42}
    assert bad.is_error is True
    assert bad.structured_content is None


# -- NaN and infinities ------------------------------------------------------------------------
NULLED = {"mean": None, "high": None, "low": None, "series": [1.5, None]}


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, None], ids=[*HANDSHAKE_VERSIONS, "sessionless"])
def test_nan_and_infinity_become_null_in_tools_call(http: Http, version: str | None) -> None:
    headers = session(http, version) if version else None
    result = call(http, headers, "not_finite", {})
    assert result["isError"] is False
    assert strict(result["content"][0]["text"].encode()) == NULLED
    if version in STRUCTURED_VERSIONS:
        assert result["structuredContent"] == NULLED


def test_nan_and_infinity_become_null_over_rest(http: Http) -> None:
    reply = http.post("/tools/not_finite", {})
    assert (reply.status, strict(reply.raw)) == (200, NULLED)


def test_nan_becomes_null_in_resource_contents(http: Http) -> None:
    reply = http.rpc("resources/read", {"uri": "data://not-finite"})
    [content] = strict(reply.raw)["result"]["contents"]
    assert strict(content["text"].encode()) == {"value": None, "ok": 1}


# -- async tools --------------------------------------------------------------------------------
def poll(http: Http, job_id: str, seconds: float = 10.0) -> dict[str, Any]:
    """Poll ``POST /tools/get_job_result`` until the job leaves "running" (bounded)."""
    deadline = time.monotonic() + seconds
    while True:
        reply = http.post("/tools/get_job_result", {"job_id": job_id})
        assert reply.status == 200, reply.raw
        status = strict(reply.raw)
        if status["status"] != "running":
            return status
        assert time.monotonic() < deadline, f"job {job_id} still running after {seconds} s"
        time.sleep(0.02)


def started(reply: Reply) -> str:
    assert reply.status == 202, reply.raw
    handle = strict(reply.raw)
    assert handle["status"] == "running"
    assert "get_job_result" in handle["message"]
    assert isinstance(handle["job_id"], str)
    assert len(handle["job_id"]) >= 16
    return handle["job_id"]


def test_an_async_tool_over_rest_answers_202_then_get_job_result_gives_the_result(http: Http) -> None:
    began = time.monotonic()
    job_id = started(http.post("/tools/slow_square", {"x": 3}))
    assert time.monotonic() - began < 0.1 + 0.5  # answered before the work finished (plus slack)
    assert poll(http, job_id) == {"status": "done", "job_id": job_id, "result": {"square": 9}}
    # Polling again gives the same answer: a lost response loses nothing.
    assert poll(http, job_id) == {"status": "done", "job_id": job_id, "result": {"square": 9}}


def test_a_failing_async_tool_reports_the_error_when_polled(http: Http) -> None:
    job_id = started(http.post("/tools/slow_failure", {"reason": "the detector is offline"}))
    assert poll(http, job_id) == {"status": "error", "job_id": job_id, "error": "the detector is offline"}


def test_invalid_arguments_to_an_async_tool_are_refused_before_a_job_starts(http: Http) -> None:
    reply = http.post("/tools/slow_square", {"x": "three"})
    assert reply.status == 400
    assert "x" in strict(reply.raw)["error"]


def test_an_unknown_job_id_is_not_found(http: Http) -> None:
    # A tool error (issue 13): 404 over REST, with the status body pollers read.
    reply = http.post("/tools/get_job_result", {"job_id": "no-such-job"})
    assert reply.status == 404
    assert strict(reply.raw)["status"] == "not_found"


def test_an_async_tool_over_tools_call_gives_a_handle_polled_with_the_tool(http: Http) -> None:
    headers = session(http, "2025-11-25")
    result = call(http, headers, "slow_square", {"x": 4})
    assert result["isError"] is False
    handle = json.loads(result["content"][0]["text"])
    assert handle["status"] == "running"
    assert f'get_job_result(job_id="{handle["job_id"]}")' in handle["message"]
    deadline = time.monotonic() + 10
    while True:
        polled = call(http, headers, "get_job_result", {"job_id": handle["job_id"]})
        status = json.loads(polled["content"][0]["text"])
        if status["status"] != "running":
            break
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert status == {"status": "done", "job_id": handle["job_id"], "result": {"square": 16}}
    # Another session cannot read this session's job (the 0.4.x package leaked it).
    other = call(http, session(http, "2025-11-25"), "get_job_result", {"job_id": handle["job_id"]})
    assert json.loads(other["content"][0]["text"])["status"] == "not_found"


def test_a_float_that_overflowed_is_spelled_out_not_null(http: Http) -> None:
    """A fresh-user trial: add(1e308, 1e308) answered "null" with isError false, an overflow reading as "no
    value". The text block now says Infinity (NaN, -Infinity likewise); JSON data keeps null."""
    result = call(http, session(http, "2025-11-25"), "add_floats", {"a": 1e308, "b": 1e308})
    assert result["content"] == [{"type": "text", "text": "Infinity"}]
    reply = http.post("/tools/add_floats", {"a": -1e308, "b": -1e308})
    assert (reply.status, strict(reply.raw)) == (200, {"result": "-Infinity"})
