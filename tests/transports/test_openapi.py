"""``GET /openapi.json``: a valid OpenAPI 3.1 document whose operations are what
``POST /tools/<name>`` really does — request body = input schema, 200 (or 202 for async tools)
with the real result shape, and every error status the route answers with its body (400, 404, 413, 415, 422,
500, 503, and 504 for a call past a time limit, 429 for an async tool's job that could not start, 401 and 403
with authorization) — and whose ``servers`` entry carries the path prefix, so clients resolve the paths through a
proxy.

Source: OpenAPI Specification 3.1.0; the REST answers ``transports/rest.py`` documents.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.validators import OpenAPIV31SpecValidator
from raw_http import Http
from support import serve

from nanohubmcp import MCPServer

SUM_SCHEMA = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}


def build() -> MCPServer:
    server = MCPServer("openapi-demo", version="2.1.0", instructions="Tools for the OpenAPI test.")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: the first addend
            b: the second addend
        """
        return a + b

    @server.tool(output_schema=SUM_SCHEMA, tags={"math"})
    def typed_sum(a: int, b: int) -> dict:
        """Add two integers with a declared output schema."""
        return {"sum": a + b}

    @server.tool()
    def stats(values: list[float]) -> dict:
        """Mean and spread of a list."""
        return {"mean": sum(values) / len(values), "n": len(values)}

    @server.tool()
    def fail(message: str) -> str:
        """Always raise."""
        raise RuntimeError(message)

    @server.async_tool()
    def slow_square(x: float) -> float:
        """Square a number, slowly."""
        time.sleep(0.05)
        return x * x

    return server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(build()) as base:
        yield base


@pytest.fixture(scope="module")
def document(url: str) -> dict[str, Any]:
    with Http(url) as http:
        reply = http.get("/openapi.json")
    assert reply.status == 200
    assert reply.header("Content-Type").startswith("application/json")
    return reply.json


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1.")
    validate(document, cls=OpenAPIV31SpecValidator)
    assert document["info"]["title"] == "openapi-demo"
    assert document["info"]["version"] == "2.1.0"


def test_every_tool_is_one_post_operation_named_after_it(document: dict[str, Any]) -> None:
    paths = document["paths"]
    assert set(paths) == {f"/tools/{name}" for name in
                          ("add", "typed_sum", "stats", "fail", "slow_square", "get_job_result", "cancel_job")}
    operation_ids = [item["post"]["operationId"] for item in paths.values()]
    assert sorted(operation_ids) == sorted(p.rsplit("/", 1)[1] for p in paths)
    for path, item in paths.items():
        assert set(item) == {"post"}, path
        assert item["post"]["summary"], path


def test_the_request_body_is_the_tools_input_schema(document: dict[str, Any], url: str) -> None:
    with Http(url) as http:
        tools = {t["name"]: t for t in http.rpc("tools/list").json["result"]["tools"]}
    for name, tool in tools.items():
        body = document["paths"][f"/tools/{name}"]["post"]["requestBody"]
        assert body["content"]["application/json"]["schema"] == tool["inputSchema"], name
    add = document["paths"]["/tools/add"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert add["properties"]["a"]["description"] == "the first addend"


ERRORS = ("400", "404", "413", "415", "422", "500", "503")
"""The error statuses of every tool's REST route (the 504 of a time limit is a sync tool's, the 429 an async one's)."""


@pytest.mark.parametrize("name", ["add", "typed_sum", "stats", "fail", "get_job_result"])
def test_sync_tools_document_200_and_every_error_status_with_schemas(document: dict[str, Any], name: str) -> None:
    responses = document["paths"][f"/tools/{name}"]["post"]["responses"]
    assert set(responses) == {"200", *ERRORS, "504"}  # was without 413, 415, 503 and 504 (the time limits')
    for status in responses:
        assert responses[status]["description"], status
        schema = responses[status]["content"]["application/json"]["schema"]
        jsonschema.Draft202012Validator.check_schema(schema)
    assert responses["503"]["headers"]["Retry-After"]["schema"] == {"type": "integer", "minimum": 0}
    for status in (*ERRORS, "504"):
        error = responses[status]["content"]["application/json"]["schema"]
        jsonschema.validate({"error": "something went wrong"}, error)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"result": 1}, error)


def test_a_declared_output_schema_is_the_200_schema(document: dict[str, Any]) -> None:
    ok = document["paths"]["/tools/typed_sum"]["post"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"] == SUM_SCHEMA


def test_async_tools_document_202_with_the_job_handle(document: dict[str, Any]) -> None:
    responses = document["paths"]["/tools/slow_square"]["post"]["responses"]
    assert set(responses) == {"202", *ERRORS, "429"}  # it answers at once: no 504 (its job's limit is its own)
    job = responses["202"]["content"]["application/json"]["schema"]
    jsonschema.validate({"status": "running", "job_id": "abc", "message": "poll"}, job)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"result": 1}, job)


def response_schema(document: dict[str, Any], name: str, status: int) -> dict[str, Any]:
    responses = document["paths"][f"/tools/{name}"]["post"]["responses"]
    return responses[str(status)]["content"]["application/json"]["schema"]


CALLS = [
    ("add", {"a": 7, "b": 3}, 200),
    ("typed_sum", {"a": 2, "b": 5}, 200),
    ("stats", {"values": [1, 2, 3]}, 200),
    ("fail", {"message": "boom"}, 500),
    ("add", {"a": "seven"}, 400),
    ("add", b"{not json", 400),
    ("slow_square", {"x": 3}, 202),
    ("get_job_result", {"job_id": "no-such-job"}, 404),
    ("cancel_job", {"job_id": "no-such-job"}, 404),  # was 500 (trial 10, F1)
]


@pytest.mark.parametrize(("name", "body", "status"), CALLS)
def test_real_rest_answers_match_the_documented_schemas(document: dict[str, Any], url: str, name: str,
                                                        body: Any, status: int) -> None:
    with Http(url) as http:
        reply = http.post(f"/tools/{name}", body)
    assert reply.status == status, reply.raw
    jsonschema.validate(reply.json, response_schema(document, name, status))


def test_a_body_that_is_not_json_answers_the_documented_415_body(document: dict[str, Any], url: str) -> None:
    with Http(url) as http:
        reply = http.post("/tools/add", b"a=1&b=2", {"Content-Type": "application/x-www-form-urlencoded"})
    assert reply.status == 415, reply.raw
    jsonschema.validate(reply.json, response_schema(document, "add", 415))


def test_time_limits_busy_workers_large_bodies_and_tokens_answer_as_documented() -> None:
    """A server with ``tool_timeout``, ``max_stuck_calls``, ``max_request_bytes`` and a token: its document lists
    401, and 403 for a tool with scopes only (no middleware); the real 504, 503, 413, 401 and 403 answers are its
    schemas'."""
    release = threading.Event()
    server = MCPServer("openapi-limits", tool_timeout=0.5, max_stuck_calls=1)

    @server.tool()
    def hang(wait: bool = True) -> str:
        """Block until the test releases it, unless told not to."""
        if wait:
            release.wait(60)
        return "returned"

    @server.tool(scopes=["lab:write"])
    def write() -> str:
        """Needs a scope the token lacks."""
        return "written"

    token = {"Authorization": "Bearer openapi-token"}
    with serve(server, token="openapi-token", max_request_bytes=4096) as base, Http(base, headers=token) as http:
        try:
            document = http.get("/openapi.json").json
            validate(document, cls=OpenAPIV31SpecValidator)
            responses = document["paths"]["/tools/hang"]["post"]["responses"]
            assert set(responses) == {"200", *ERRORS, "504", "401"}
            assert "WWW-Authenticate" in responses["401"]["headers"]
            assert set(document["paths"]["/tools/write"]["post"]["responses"]) == {"200", *ERRORS, "504", "401", "403"}
            answers = [http.post("/tools/hang", {}),  # past tool_timeout: abandoned, running on
                       http.post("/tools/hang", {"wait": False}),  # max_stuck_calls=1 reached: not run
                       http.post("/tools/hang", {"pad": "x" * 8192})]
            with Http(base) as bare:
                answers.append(bare.post("/tools/hang", {}))
            with Http(base, headers=token) as other:
                answers.append(other.post("/tools/write", {}))
            assert [reply.status for reply in answers] == [504, 503, 413, 401, 403], [r.raw for r in answers]
            for reply, tool in zip(answers, ["hang"] * 4 + ["write"], strict=True):
                jsonschema.validate(reply.json, response_schema(document, tool, reply.status))
            assert int(answers[1].header("Retry-After")) >= 1
            assert answers[3].header("WWW-Authenticate").startswith("Bearer")
        finally:
            release.set()


def test_an_unknown_tool_answers_the_documented_404_body(document: dict[str, Any], url: str) -> None:
    with Http(url) as http:
        reply = http.post("/tools/no_such_tool", {})
    assert reply.status == 404
    jsonschema.validate(reply.json, response_schema(document, "add", 404))


def test_servers_points_at_the_server(document: dict[str, Any], url: str) -> None:
    assert document["servers"] == [{"url": url.rstrip("/")}]


PREFIX = "/weber/4242/c00kie/123"


def test_servers_carries_the_path_prefix_and_the_paths_resolve_through_it() -> None:
    with serve(build(), path_prefix=PREFIX + "/") as base, Http(base) as http:
        assert base.endswith(PREFIX + "/")
        reply = http.get("/openapi.json")
        assert reply.status == 200
        document = reply.json
        validate(document, cls=OpenAPIV31SpecValidator)
        [server] = document["servers"]
        assert server["url"] == base.rstrip("/")
        assert server["url"].endswith(PREFIX)
        # A client joins servers[0].url and a path: that request must reach the tool.
        for path in ("/tools/add",):
            assert path in document["paths"]
            called = http.post(path, {"a": 1, "b": 2})
            assert called.status == 200
            assert float(called.json["result"]) == 3
        # Without the prefix there is nothing to find.
        with Http(base.split(PREFIX)[0]) as bare:
            assert bare.post("/tools/add", {"a": 1, "b": 2}).status == 404


def test_servers_is_the_public_url_behind_a_proxy() -> None:
    public = "https://proxy.nanohub.org/weber/4242/c00kie/123/"
    server = build()
    with serve(server, public_url=public) as base:
        assert base == public  # what the server advertises; it listens on loopback
        with Http(f"http://127.0.0.1:{server.port}/") as http:
            document = http.get("/openapi.json").json
    assert document["servers"] == [{"url": public.rstrip("/")}]
    validate(document, cls=OpenAPIV31SpecValidator)
