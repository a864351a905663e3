"""``@server.tool(scopes=[...])``: a caller whose token lacks the scopes gets HTTP 403 with
``WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`` on every route; a token
with them calls the tool; the 403's JSON-RPC error carries the request's id; without
authorization configured the scopes are not checked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from support import serve, tool_call_message

from nanohubmcp import MCPServer, StaticTokenVerifier
from nanohubmcp.errors import RegistrationError

READER, WRITER = "reader-token", "writer-token"


def initialize() -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }


def scoped_server() -> MCPServer:
    server = MCPServer("scoped")

    @server.tool(scopes=["files:write"])
    def delete_everything() -> str:
        return "deleted"

    @server.tool()
    def read() -> str:
        return "read"

    return server


class Verifier:
    """Two static tokens with different scopes (a custom verifier: any object with verify())."""

    def __init__(self) -> None:
        self.reader = StaticTokenVerifier({READER: "reader"}, scopes="files:read")
        self.writer = StaticTokenVerifier({WRITER: "writer"}, scopes="files:read files:write")

    def verify(self, token: str) -> Any:
        return self.reader.verify(token) or self.writer.verify(token)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server = scoped_server()
    server.auth = Verifier()
    with serve(server) as base:
        yield base


def post(url: str, path: str, body: Any, token: str, **headers: str) -> httpx2.Response:
    sent = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream", **headers}
    return httpx2.post(url + path, json=body, headers=sent, timeout=10)


def session(url: str, token: str) -> str:
    response = post(url, "mcp", initialize(), token, Accept="application/json")
    assert response.status_code == 200
    return response.headers["Mcp-Session-Id"]


def assert_insufficient_scope(response: httpx2.Response) -> None:
    assert response.status_code == 403, response.text
    challenge = response.headers["WWW-Authenticate"]
    assert challenge.startswith("Bearer ")
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="files:write"' in challenge
    assert "resource_metadata=" in challenge


def test_streamable_http_answers_403_insufficient_scope(url: str) -> None:
    sid = session(url, READER)
    response = post(url, "mcp", tool_call_message("delete_everything"), READER, **{"Mcp-Session-Id": sid})
    assert_insufficient_scope(response)
    assert response.json()["error"]["data"] == {"requiredScopes": ["files:write"]}
    assert "files:write" in response.json()["error"]["message"]
    assert response.json()["id"] == 1  # the client ties the refusal to its request
    ok = post(url, "mcp", tool_call_message("read"), READER, **{"Mcp-Session-Id": sid, "Accept": "application/json"})
    assert ok.json()["result"]["content"][0]["text"] == "read"


def test_legacy_sse_answers_403_insufficient_scope_with_the_request_id(url: str) -> None:
    headers = {"Authorization": f"Bearer {READER}", "Accept": "text/event-stream"}
    with httpx2.stream("GET", url + "sse", headers=headers, timeout=10) as events:
        lines = events.iter_lines()  # kept: closing the iterator would end the stream and its session
        endpoint = next(line for line in lines if line.startswith("data:"))[5:].strip()
        response = post(url, endpoint, tool_call_message("delete_everything"), READER)
    assert_insufficient_scope(response)
    assert response.json()["id"] == 1


def test_the_rest_route_answers_403_insufficient_scope(url: str) -> None:
    response = post(url, "tools/delete_everything", {}, READER)
    assert_insufficient_scope(response)
    assert "files:write" in response.json()["error"]
    ok = post(url, "tools/delete_everything", {}, WRITER)
    assert (ok.status_code, ok.json()["result"]) == (200, "deleted")


def test_the_2026_era_answers_403_insufficient_scope(url: str) -> None:
    body = tool_call_message("delete_everything")
    body["params"]["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "delete_everything"}
    refused = post(url, "mcp", body, READER, **headers)
    assert_insufficient_scope(refused)
    assert refused.json()["id"] == 1
    ok = post(url, "mcp", body, WRITER, **headers, Accept="application/json")
    assert ok.status_code == 200, ok.text


def test_a_token_with_the_scope_calls_the_tool(url: str) -> None:
    sid = session(url, WRITER)
    call = tool_call_message("delete_everything")
    ok = post(url, "mcp", call, WRITER, **{"Mcp-Session-Id": sid, "Accept": "application/json"})
    assert json.loads(ok.text)["result"]["content"][0]["text"] == "deleted"


def test_without_authorization_scopes_are_not_checked() -> None:
    server = scoped_server()
    with serve(server, token="") as base:
        response = httpx2.post(base + "tools/delete_everything", json={}, timeout=10)
        assert response.status_code == 200


def test_scopes_must_be_strings() -> None:
    server = MCPServer("bad")
    with pytest.raises(RegistrationError, match="scopes"):
        server.add_tool(lambda: 1, name="f", scopes=5)
