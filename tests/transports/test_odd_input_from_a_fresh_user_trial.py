"""Inputs a fresh-user trial found mishandled: each now gets a clear answer, never a 500."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError


def build() -> MCPServer:
    server = MCPServer("odd")

    @server.tool()
    def echo(s: str) -> str:
        """Echo the text."""
        return s

    @server.prompt()
    def topic(topic: str) -> str:
        """A prompt."""
        return f"Talk about {topic}"

    return server


def send(base: str, path: str, body: bytes, content_type: str = "application/json") -> tuple[int, Any]:
    host, port = base.split("//")[1].strip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", path, body, {"Content-Type": content_type})
    reply = conn.getresponse()
    data = reply.read()
    conn.close()
    return reply.status, json.loads(data) if data else None


def rpc(method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


def test_a_lone_surrogate_a_tool_echoes_is_sent_as_u_fffd() -> None:
    with serve(build()) as base:
        status, reply = send(base, "/mcp", b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                                           b'"params":{"name":"echo","arguments":{"s":"\\ud800x"}}}')
        assert status == 200
        assert reply["result"]["content"][0]["text"] == "\ufffdx"  # (every client can read it; trial33 W20)


def test_absurdly_nested_json_is_a_parse_error() -> None:
    with serve(build()) as base:
        status, reply = send(base, "/mcp", b"[" * 100_000 + b"]" * 100_000)
        assert status == 400
        assert reply["error"]["code"] == -32700
        assert "nested more than 128 levels deep" in reply["error"]["message"]


def test_prompt_arguments_must_be_strings() -> None:
    with serve(build()) as base:
        status, reply = send(base, "/mcp", rpc("prompts/get", {"name": "topic", "arguments": {"topic": 5}}))
        assert status == 200
        assert reply["error"]["code"] == -32602
        assert "topic" in reply["error"]["message"]


def test_rest_calls_need_a_json_body() -> None:
    with serve(build()) as base:
        status, reply = send(base, "/tools/echo", b"s=hello", "application/x-www-form-urlencoded")
        assert status == 415
        assert "application/json" in reply["error"]


def test_a_name_passed_positionally_gets_a_hint() -> None:
    server = MCPServer("hint")
    with pytest.raises(RegistrationError, match=r"name='add'"):
        server.tool("add")


def test_a_404_repeats_only_the_start_of_a_huge_path() -> None:
    with serve(build()) as base:
        host, port = base.split("//")[1].strip("/").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("GET", "/" + "a" * 60_000)
        reply = conn.getresponse()
        body = json.loads(reply.read())
        conn.close()
        assert reply.status == 404
        assert body["error"].startswith("No route for GET /" + "a" * 199 + "…; see GET /")
        assert len(body["error"]) < 300


def test_a_browser_may_send_the_trace_context_headers() -> None:
    with serve(build()) as base:
        host, port = base.split("//")[1].strip("/").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("OPTIONS", "/mcp", headers={
            "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, traceparent, tracestate, baggage"})
        reply = conn.getresponse()
        reply.read()
        conn.close()
        allowed = {h.strip().lower() for h in reply.getheader("Access-Control-Allow-Headers", "").split(",")}
        assert reply.status == 204
        assert {"traceparent", "tracestate", "baggage"} <= allowed
