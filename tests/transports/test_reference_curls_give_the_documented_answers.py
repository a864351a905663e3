"""The reference README's "Testing Your Server" sections 1-3 and 5-7, replayed against its
quick-start server (``my-calculator``) on a loopback port.

"The documented answer" means the same shape and fields, with these values: a bare
``initialize`` answers 2025-11-25 (not 2024-11-05), the discovery document's ``mcpVersion`` is
2025-11-25, and advertised endpoints are public URLs. Section 4 (SSE) is left out: a response
only reaches the stream that asked (MCP 2025-11-25, Transports § Streamable HTTP).
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
from collections.abc import Iterator

import pytest
from raw_http import CURL_HEADERS, Http
from support import serve, without_provenance

from nanohubmcp import MCPServer


def quick_start() -> MCPServer:
    """The reference README's "Quick Start" start_mcp.py, as written there."""
    server = MCPServer("my-calculator", version="1.0.0")

    @server.tool()
    def add(a, b):
        # type: (float, float) -> float
        """Add two numbers together."""
        return float(a) + float(b)

    @server.tool()
    def multiply(a, b):
        # type: (float, float) -> float
        """Multiply two numbers."""
        return float(a) * float(b)

    @server.resource("config://settings")
    def get_settings():
        """Get application settings."""
        return {"precision": 10}

    @server.prompt()
    def calculate(expression):
        # type: (str) -> list
        """Generate a calculation prompt."""
        return [{"role": "user", "content": {"type": "text", "text": f"Please calculate: {expression}"}}]

    return server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(quick_start()) as base:
        yield base


@pytest.fixture
def http(url: str) -> Iterator[Http]:
    with Http(url, headers=CURL_HEADERS) as connection:
        yield connection


# -- 1. Server Info ------------------------------------------------------------------------
def test_1_server_info(http: Http, url: str) -> None:
    reply = http.get("/")
    assert reply.status == 200
    assert reply.header("Content-Type").startswith("application/json")
    info = reply.json
    assert {k: info[k] for k in ("name", "version", "status", "tools", "resources", "prompts")} == {
        "name": "my-calculator", "version": "1.0.0", "status": "running",
        "tools": 2, "resources": 1, "prompts": 1,
    }
    endpoints = info["endpoints"]
    assert endpoints["sse"] == f"{url}sse"
    assert endpoints["mcp"] == f"{url}mcp"
    assert endpoints["openapi"] == f"{url}openapi.json"


# -- 2. MCP JSON-RPC -----------------------------------------------------------------------
def test_2_initialize_with_empty_params_answers_the_latest_handshake_version(http: Http) -> None:
    reply = http.rpc("initialize", {}, id=1)
    assert reply.status == 200
    body = reply.json
    assert (body["jsonrpc"], body["id"]) == ("2.0", 1)
    result = body["result"]
    assert result["protocolVersion"] == "2025-11-25"
    assert result["serverInfo"] == {"name": "my-calculator", "version": "1.0.0"}
    assert {"tools", "resources", "prompts", "logging"} <= set(result["capabilities"])


def test_2_list_tools(http: Http) -> None:
    body = http.rpc("tools/list", {}, id=2).json
    assert body["id"] == 2
    tools = {t["name"]: t for t in body["result"]["tools"]}
    assert set(tools) == {"add", "multiply"}
    assert tools["add"]["description"] == "Add two numbers together."
    assert tools["add"]["inputSchema"]["properties"] == {"a": {"type": "number"}, "b": {"type": "number"}}


def test_2_call_a_tool(http: Http) -> None:
    reply = http.rpc("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, id=3)
    assert reply.status == 200
    body = reply.json
    assert {**body, "result": without_provenance(body["result"])} == {
        "jsonrpc": "2.0", "id": 3,
        "result": {"content": [{"type": "text", "text": "5.0"}], "isError": False},
    }


def test_2_list_and_read_resources(http: Http) -> None:
    listed = http.rpc("resources/list", {}, id=4).json
    assert listed["id"] == 4
    [resource] = listed["result"]["resources"]
    assert resource["uri"] == "config://settings"
    assert resource["name"] == "get_settings"
    read = http.rpc("resources/read", {"uri": "config://settings"}, id=5).json
    assert read["id"] == 5
    [content] = read["result"]["contents"]
    assert content["uri"] == "config://settings"
    assert json.loads(content["text"]) == {"precision": 10}


def test_2_list_and_get_prompts(http: Http) -> None:
    listed = http.rpc("prompts/list", {}, id=6).json
    assert listed["id"] == 6
    [prompt] = listed["result"]["prompts"]
    assert prompt["name"] == "calculate"
    assert prompt["arguments"] == [{"name": "expression", "required": True}]
    got = http.rpc("prompts/get", {"name": "calculate", "arguments": {"expression": "2+2"}}, id=7).json
    assert got["id"] == 7
    assert got["result"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Please calculate: 2+2"}}
    ]


def test_2_ping(http: Http) -> None:
    assert http.rpc("ping", {}, id=8).json == {"jsonrpc": "2.0", "id": 8, "result": {}}


# -- 3. Direct Tool Calls -------------------------------------------------------------------
def test_3_rest_tool_call(http: Http) -> None:
    reply = http.post("/tools/add", {"a": 7, "b": 3})
    assert reply.status == 200
    assert reply.json == {"result": "10.0"}


# -- 5. OpenAPI Schema ----------------------------------------------------------------------
def test_5_openapi_exposes_every_tool_as_a_post_operation(http: Http) -> None:
    reply = http.get("/openapi.json")
    assert reply.status == 200
    document = reply.json
    assert document["openapi"].startswith("3.1")
    assert document["info"]["title"] == "my-calculator"
    assert set(document["paths"]) == {"/tools/add", "/tools/multiply"}
    for path in document["paths"].values():
        assert set(path) == {"post"}


# -- 6. MCP Discovery -----------------------------------------------------------------------
def test_6_discovery_document(http: Http, url: str) -> None:
    reply = http.get("/.well-known/mcp.json")
    assert reply.status == 200
    document = reply.json
    assert document["mcpVersion"] == "2025-11-25"
    assert document["serverInfo"] == {"name": "my-calculator", "version": "1.0.0"}
    assert {"tools", "resources", "prompts", "logging"} <= set(document["capabilities"])
    transports = {t["type"]: t["endpoint"] for t in document["transports"]}
    assert transports == {"sse": f"{url}sse", "streamable-http": f"{url}mcp"}
    assert "2025-11-25" in document["supportedVersions"]


# -- 7. Python Test Client -----------------------------------------------------------------
# Copied from the reference README unchanged except for the address (``"localhost", 8000``).
PYTHON_TEST_CLIENT = '''
import json
try:
    from http.client import HTTPConnection
except ImportError:
    from httplib import HTTPConnection

conn = HTTPConnection("localhost", 8000, timeout=5)

def call(method, params=None):
    body = json.dumps({
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": params or {}
    }).encode("utf-8")
    conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    return json.loads(resp.read().decode("utf-8"))

# Initialize
print(call("initialize"))

# List tools
print(call("tools/list"))

# Call a tool
print(call("tools/call", {"name": "add", "arguments": {"a": 10, "b": 20}}))

# List resources
print(call("resources/list"))

# Read a resource
print(call("resources/read", {"uri": "config://settings"}))

# List prompts
print(call("prompts/list"))

# Get a prompt
print(call("prompts/get", {"name": "calculate", "arguments": {"expression": "2+2"}}))

conn.close()
'''


def test_7_the_python_test_client_runs_unchanged(url: str) -> None:
    port = int(url.rsplit(":", 1)[1].strip("/"))
    source = PYTHON_TEST_CLIENT.replace('"localhost", 8000', f'"127.0.0.1", {port}')
    assert source.count(str(port)) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "readme_test_client.py", "exec"), {"__name__": "readme_test_client"})
    replies = [ast.literal_eval(line) for line in out.getvalue().splitlines()]
    assert len(replies) == 7
    assert all(r["jsonrpc"] == "2.0" and r["id"] == 1 and "result" in r for r in replies), replies
    initialize, tools, called, resources, read, prompts, prompt = (r["result"] for r in replies)
    assert initialize["protocolVersion"] == "2025-11-25"
    assert {t["name"] for t in tools["tools"]} == {"add", "multiply"}
    assert without_provenance(called) == {"content": [{"type": "text", "text": "30.0"}], "isError": False}
    assert [r["uri"] for r in resources["resources"]] == ["config://settings"]
    assert json.loads(read["contents"][0]["text"]) == {"precision": 10}
    assert [p["name"] for p in prompts["prompts"]] == ["calculate"]
    assert prompt["messages"][0]["content"]["text"] == "Please calculate: 2+2"


# -- Error handling (reference "MCP Protocol Reference") -----------------------------------
def test_unknown_method_is_method_not_found(http: Http) -> None:
    body = http.rpc("unknown/method", {}, id=1).json
    assert body == {"jsonrpc": "2.0", "id": 1,
                    "error": {"code": -32601, "message": "Method not found: unknown/method"}}
