"""``params._meta`` is an object in every MCP version: a request whose ``_meta`` is a string, a list or
a number is -32602 naming ``params._meta``, with the HTTP status of its era (handshake era: 200, the
error in the body; 2026-07-28: 400). A fresh-user trial found the handshake era served such a call.
``"_meta": null`` is taken as absent, as before.
"""

from __future__ import annotations

from typing import Any

import pytest
from raw_http import JSON_HEADERS, Http
from support import rpc_message, serve

from nanohubmcp import MCPServer

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}


def build() -> MCPServer:
    server = MCPServer("meta")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return server


def call(meta: Any) -> dict[str, Any]:
    return rpc_message("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta})


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
@pytest.mark.parametrize(("meta", "kind"), [("str", "a string"), ([1], "an array"), (5, "an integer")])
def test_a_sessionless_handshake_request_is_refused(version: str, meta: Any, kind: str) -> None:
    with serve(build()) as base:
        reply = Http(base).request("POST", "/mcp", call(meta), {**JSON_HEADERS, "MCP-Protocol-Version": version})
        assert reply.status == 200, reply.raw
        error = reply.json["error"]
        assert (reply.json["id"], error["code"]) == (1, -32602)
        assert f'"params._meta" must be an object (such as {{"progressToken": 1}}), not {kind}' in error["message"]


def test_a_request_in_a_session_is_refused_and_the_session_serves_on() -> None:
    with serve(build()) as base:
        http = Http(base)
        opened = http.request("POST", "/mcp", rpc_message("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
            JSON_HEADERS)
        session = {**JSON_HEADERS, "Mcp-Session-Id": opened.header("Mcp-Session-Id") or ""}
        http.request("POST", "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        refused = http.request("POST", "/mcp", call("str"), session)
        assert refused.status == 200
        assert refused.json["error"]["code"] == -32602
        assert "params._meta" in refused.json["error"]["message"]
        served = http.request("POST", "/mcp", call({"progressToken": "p"}), session)
        assert served.json["result"]["content"][0]["text"] == "3"


def test_a_list_meta_is_refused_on_the_legacy_post_route_too() -> None:
    with serve(build()) as base:
        reply = Http(base).request("POST", "/", call([]), JSON_HEADERS)
        assert reply.json["error"]["code"] == -32602


def test_a_null_meta_is_taken_as_absent() -> None:
    with serve(build()) as base:
        reply = Http(base).request("POST", "/mcp", call(None), {**JSON_HEADERS, "MCP-Protocol-Version": "2025-06-18"})
        assert reply.json["result"]["content"][0]["text"] == "3"


@pytest.mark.parametrize("meta", ["str", [MODERN_META]])
def test_the_2026_era_refuses_it_with_400(meta: Any) -> None:
    with serve(build()) as base:
        reply = Http(base).request("POST", "/mcp", call(meta), {
            **JSON_HEADERS, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"})
        assert reply.status == 400, reply.raw
        assert reply.json["error"]["code"] == -32602
        assert "params._meta" in reply.json["error"]["message"]
        assert "not an object" in reply.json["error"]["message"]
