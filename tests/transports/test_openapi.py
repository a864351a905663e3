"""``GET /openapi.json``: a valid OpenAPI 3.1 document whose operations are what
``POST /tools/<name>`` really does — request body = input schema, 200 (or 202 for async tools)
with the real result shape, 400/404/500 error bodies — and whose ``servers`` entry carries the
path prefix, so clients resolve the paths through a proxy.

Source: OpenAPI Specification 3.1.0; the REST answers ``transports/rest.py`` documents.
"""

from __future__ import annotations

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


@pytest.mark.parametrize("name", ["add", "typed_sum", "stats", "fail"])
def test_sync_tools_document_200_400_404_and_500_with_schemas(document: dict[str, Any], name: str) -> None:
    responses = document["paths"][f"/tools/{name}"]["post"]["responses"]
    assert {"200", "400", "404", "500"} <= set(responses)
    assert "202" not in responses
    for status in ("200", "400", "404", "500"):
        assert responses[status]["description"], status
        schema = responses[status]["content"]["application/json"]["schema"]
        jsonschema.Draft202012Validator.check_schema(schema)
    for status in ("400", "404", "500"):
        error = responses[status]["content"]["application/json"]["schema"]
        jsonschema.validate({"error": "something went wrong"}, error)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"result": 1}, error)


def test_a_declared_output_schema_is_the_200_schema(document: dict[str, Any]) -> None:
    ok = document["paths"]["/tools/typed_sum"]["post"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"] == SUM_SCHEMA


def test_async_tools_document_202_with_the_job_handle(document: dict[str, Any]) -> None:
    responses = document["paths"]["/tools/slow_square"]["post"]["responses"]
    assert "202" in responses
    assert "200" not in responses
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
