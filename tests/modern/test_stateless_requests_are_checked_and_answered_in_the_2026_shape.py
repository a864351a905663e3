"""A 2026-07-28 request on /mcp: era detection, the envelope and header checks in the spec's order,
the status codes, resultType, serverInfo and caching hints - held to the official SDK's wire types."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp_types.methods import validate_server_result
from modern_wire import DROP, META_CAPS, META_VERSION, TASKS, VERSION, Wire
from support import serve

from nanohubmcp import Context, MCPServer


def build() -> MCPServer:
    server = MCPServer("stateless-shape", version="2.1.0", instructions="Use add for sums.")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def ask_name(ctx: Context) -> str:
        """Ask the user's name."""
        answer = ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        return f"Hi {answer['content']['name']}"

    @server.resource("data://café")
    def cafe() -> str:
        """A resource whose URI is not plain ASCII (its Mcp-Name travels Base64-wrapped)."""
        return "ok"

    @server.resource("data://greeting", mime_type="text/plain")
    def greeting() -> str:
        """A greeting."""
        return "hello"

    @server.resource("data://item/{key}")
    def item(key: str) -> dict[str, Any]:
        """One item."""
        return {"key": key}

    @server.prompt()
    def explain(topic: str) -> str:
        """Explain a topic."""
        return f"Explain {topic}"

    return server


@pytest.fixture(scope="module")
def wire() -> Iterator[Wire]:
    with serve(build()) as url:
        yield Wire(url + "mcp")


def test_discover_names_versions_capabilities_and_identity(wire: Wire) -> None:
    reply = wire.call("server/discover")
    assert reply.status == 200
    result = reply.result
    validate_server_result("server/discover", VERSION, result)
    assert result["supportedVersions"] == [VERSION]
    assert result["capabilities"]["extensions"] == {TASKS: {}}
    assert "tasks" not in result["capabilities"]
    assert result["instructions"] == "Use add for sums."
    server_info = result["_meta"]["io.modelcontextprotocol/serverInfo"]
    assert server_info == {"name": "stateless-shape", "version": "2.1.0"}
    assert (result["resultType"], result["ttlMs"], result["cacheScope"]) == ("complete", 0, "public")


@pytest.mark.parametrize(("method", "params"), [
    ("tools/list", {}), ("prompts/list", {}), ("resources/list", {}), ("resources/templates/list", {}),
    ("resources/read", {"uri": "data://greeting"}),
])
def test_cacheable_results_carry_ttl_scope_and_result_type(wire: Wire, method: str,
                                                           params: dict[str, Any]) -> None:
    result = wire.call(method, params).result
    validate_server_result(method, VERSION, result)
    assert result["resultType"] == "complete"
    assert isinstance(result["ttlMs"], int)
    assert result["ttlMs"] >= 0
    assert result["cacheScope"] in ("public", "private")


def test_a_tool_result_is_complete_and_needs_no_session(wire: Wire) -> None:
    reply = wire.call("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}},
                      headers={"Mcp-Session-Id": "ignored-in-this-era"})
    assert reply.status == 200
    assert reply.headers.get("Mcp-Session-Id") is None
    validate_server_result("tools/call", VERSION, reply.result)
    assert reply.result["content"] == [{"type": "text", "text": "5"}]
    assert reply.result["resultType"] == "complete"


@pytest.mark.parametrize("meta", [
    DROP,
    {META_CAPS: {}},
    {META_VERSION: VERSION},
    {META_VERSION: 20260728, META_CAPS: {}},
    {META_VERSION: VERSION, META_CAPS: []},
])
def test_missing_or_malformed_meta_is_invalid_params_with_400(wire: Wire, meta: Any) -> None:
    reply = wire.call("tools/list", meta=meta, request_id=77)
    assert reply.status == 400
    assert reply.response == {"jsonrpc": "2.0", "id": 77, "error": reply.error}
    assert reply.error["code"] == -32602


def test_client_info_is_optional(wire: Wire) -> None:
    assert wire.call("tools/list", meta={META_VERSION: VERSION, META_CAPS: {}}).status == 200


def test_a_header_that_contradicts_meta_is_a_mismatch_before_the_version_is_judged(wire: Wire) -> None:
    reply = wire.call("server/discover", meta={META_VERSION: "v999", META_CAPS: {}},
                      headers={"MCP-Protocol-Version": VERSION})
    assert (reply.status, reply.error["code"]) == (400, -32020)


def test_an_unsupported_version_names_the_supported_and_requested_ones(wire: Wire) -> None:
    reply = wire.call("server/discover", version="2027-01-01", request_id="x-1")
    assert reply.status == 400
    assert reply.response["id"] == "x-1"
    assert reply.error["code"] == -32022
    assert reply.error["data"] == {"supported": [VERSION], "requested": "2027-01-01"}


@pytest.mark.parametrize(("method", "params", "headers"), [
    ("tools/list", {}, {"Mcp-Method": None}),
    ("tools/list", {}, {"Mcp-Method": "prompts/list"}),
    ("tools/list", {}, {"Mcp-Method": "TOOLS/LIST"}),
    ("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}, {"Mcp-Name": None}),
    ("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}, {"Mcp-Name": "other"}),
    ("resources/read", {"uri": "data://greeting"}, {"Mcp-Name": "data://other"}),
    ("prompts/get", {"name": "explain", "arguments": {"topic": "x"}}, {"Mcp-Name": "=?base64?!!?="}),
    ("tasks/get", {"taskId": "abc"}, {"Mcp-Name": "abd"}),
    ("tools/list", {}, {"MCP-Protocol-Version": None}),
])
def test_standard_headers_must_match_the_body(wire: Wire, method: str, params: dict[str, Any],
                                              headers: dict[str, Any]) -> None:
    reply = wire.call(method, params, headers=headers, caps={"extensions": {TASKS: {}}})
    assert reply.status == 400
    assert reply.error["code"] == -32020


def test_header_names_are_case_insensitive_and_values_are_trimmed(wire: Wire) -> None:
    reply = wire.call("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}},
                      headers={"mcp-method": "tools/call", "MCP-NAME": "  add  "})
    assert reply.status == 200
    assert reply.result["content"][0]["text"] == "3"


def test_a_name_outside_ascii_travels_base64_wrapped(wire: Wire) -> None:
    import base64

    wrapped = "=?base64?" + base64.b64encode("data://café".encode()).decode() + "?="
    reply = wire.call("resources/read", {"uri": "data://café"}, headers={"Mcp-Name": wrapped})
    assert reply.status == 200, reply.response
    assert reply.result["contents"][0]["text"] == "ok"


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel", "resources/subscribe",
                                    "tasks/result", "tasks/list", "no/such/method"])
def test_methods_this_era_lacks_are_404_method_not_found(wire: Wire, method: str) -> None:
    reply = wire.call(method, {}, request_id=5, caps={"extensions": {TASKS: {}}})
    assert reply.status == 404
    assert reply.response["id"] == 5
    assert reply.error["code"] == -32601


INIT = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def test_an_initialize_on_the_stateless_path_says_this_era_has_none_and_how_to_go_on(wire: Wire) -> None:
    # A fresh-user trial sent initialize with MCP-Protocol-Version: 2026-07-28 and heard only that
    # _meta was missing: the code stays the spec's (-32602 for the missing _meta, -32601 with it).
    for meta, status, code in ((DROP, 400, -32602), (None, 404, -32601)):
        reply = wire.call("initialize", INIT, meta=meta, request_id=9)
        assert (reply.status, reply.error["code"], reply.response["id"]) == (status, code, 9)
        message = reply.error["message"]
        assert "2026-07-28 has no initialize" in message
        assert "server/discover" in message
        assert "initialize without that header" in message
        assert message.endswith("Versions: 2026-07-28 per request; 2025-11-25, 2025-06-18, 2025-03-26, "
                                "2024-11-05 through initialize")


def test_a_missing_envelope_names_what_is_missing_and_a_wrong_version_too(wire: Wire) -> None:
    only_caps = wire.call("tools/list", meta={META_CAPS: {}}).error["message"]
    assert f"'{META_VERSION}' (a string, e.g. \"2026-07-28\") is missing" in only_caps
    assert META_CAPS + "' (an object" not in only_caps
    old_version = wire.call("tools/list", meta={META_VERSION: "1999-01-01"}, version="1999-01-01")
    assert (old_version.status, old_version.error["code"]) == (400, -32602)
    assert f"'{META_CAPS}' (an object; {{}} for none) is missing" in old_version.error["message"]
    assert '"1999-01-01" is not a version this server speaks per request (2026-07-28; ' in old_version.error["message"]


def test_an_envelope_that_is_not_an_object_is_named_as_such(wire: Wire) -> None:
    """A fresh-user trial sent ``"_meta": "x"`` and heard that both its members were missing."""
    reply = wire.call("tools/list", {"_meta": "x"}, meta=DROP)
    assert (reply.status, reply.error["code"]) == (400, -32602)
    assert "this one's _meta is str, not an object" in reply.error["message"]
    assert "is missing" not in reply.error["message"]


def test_a_method_of_the_other_era_says_how_to_reach_it(wire: Wire) -> None:
    assert "ping is a method of the handshake era (2025-11-25" in wire.call("ping", {}).error["message"]
    import http.client
    import json

    conn = http.client.HTTPConnection(wire.host, wire.port, timeout=10)
    try:
        conn.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover"}),
                     headers={"Content-Type": "application/json", "Accept": "application/json"})
        response = conn.getresponse()
        body = json.loads(response.read())
    finally:
        conn.close()
    assert body["error"]["code"] == -32601
    assert body["error"]["message"].startswith(
        "Method not found: server/discover. server/discover is a method of 2026-07-28: send it with params._meta")


def test_an_unknown_resource_is_invalid_params_with_its_uri(wire: Wire) -> None:
    reply = wire.call("resources/read", {"uri": "data://missing"})
    assert reply.status == 200
    assert reply.error["code"] == -32602
    assert reply.error["data"] == {"uri": "data://missing"}


def test_an_unknown_tool_is_invalid_params(wire: Wire) -> None:
    assert wire.call("tools/call", {"name": "nope"}).error["code"] == -32602


def test_notifications_are_accepted_with_202(wire: Wire) -> None:
    body, headers = wire.build("notifications/cancelled", {"requestId": 1}, notification=True)
    reply = wire.post(body, headers)
    assert (reply.status, reply.response) == (202, None)


@pytest.mark.parametrize("verb", ["GET", "DELETE"])
def test_get_and_delete_with_a_2026_header_are_405(wire: Wire, verb: str) -> None:
    reply = wire.post(b"", {"MCP-Protocol-Version": VERSION, "Accept": "text/event-stream"}, http_method=verb)
    assert reply.status == 405
    assert reply.headers.get("Allow") == "POST"


def test_input_required_results_carry_no_caching_hints(wire: Wire) -> None:
    result = wire.call("tools/call", {"name": "ask_name"}).result
    validate_server_result("tools/call", VERSION, result)
    assert result["resultType"] == "input_required"
    assert "ttlMs" not in result
    assert "cacheScope" not in result
    assert set(result["inputRequests"]) == {"elicitation_1"}
    assert result["inputRequests"]["elicitation_1"]["method"] == "elicitation/create"


def test_no_logs_are_sent_unless_the_request_asks_for_a_level() -> None:
    server = MCPServer("logs")

    @server.tool()
    def chatty(ctx: Context) -> str:
        """Log at two levels."""
        ctx.debug("fine detail")
        ctx.warning("careful")
        return "done"

    with serve(server) as url:
        wire = Wire(url + "mcp")
        quiet = wire.call("tools/call", {"name": "chatty"})
        assert quiet.notifications == []
        level = {"io.modelcontextprotocol/logLevel": "warning"}
        loud = wire.call("tools/call", {"name": "chatty", "_meta": level})
        assert [n["params"]["level"] for n in loud.notifications] == ["warning"]
        assert loud.result["content"][0]["text"] == "done"


def test_the_handshake_era_is_unchanged_beside_it(wire: Wire) -> None:
    import http.client
    import json

    conn = http.client.HTTPConnection(wire.host, wire.port, timeout=10)
    try:
        conn.request("POST", "/mcp", body=json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}},
        }), headers={"Content-Type": "application/json", "Accept": "application/json"})
        response = conn.getresponse()
        body = json.loads(response.read())
    finally:
        conn.close()
    assert response.status == 200
    assert response.headers.get("Mcp-Session-Id")
    assert body["result"]["protocolVersion"] == "2025-11-25"
    assert "resultType" not in body["result"]
