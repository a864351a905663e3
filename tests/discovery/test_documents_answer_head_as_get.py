"""The read-only documents (the Server Card, the MCP and AI catalogs, RFC 9728 metadata,
``/.well-known/mcp.json``, ``/openapi.json``) and the server's info at ``/`` answer ``HEAD`` with the
``GET``'s status and headers and no body (RFC 9110 § 9.3.2: link checkers and registries probe with HEAD);
they were 405 (trial11 F16; ``/``: trial12).
``OPTIONS`` is the CORS preflight (204, naming the methods); any other method is 405 naming them."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2 as httpx
import pytest
from support import serve

from nanohubmcp import MCPServer

TOKEN = "s3cret"


def add(a: float, b: float) -> float:
    """Add two numbers (a tool, so that /openapi.json has an operation)."""
    return a + b


DOCUMENTS = ["/mcp/server-card", "/.well-known/mcp/catalog.json", "/.well-known/ai-catalog.json",
             "/.well-known/mcp.json", "/openapi.json", "/.well-known/oauth-protected-resource",
             "/.well-known/oauth-protected-resource/mcp"]
SAME = ("Content-Type", "Content-Length", "Cache-Control")


def fetch(port: int, method: str, path: str, headers: dict[str, str]) -> tuple[int, httpx.Headers, bytes]:
    reply = httpx.request(method, f"http://127.0.0.1:{port}{path}", headers=headers, timeout=10)
    return reply.status_code, reply.headers, reply.content


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    server = MCPServer("probed")
    server.tool()(add)
    with serve(server, token=TOKEN):
        assert server.port is not None
        yield server.port


@pytest.mark.parametrize("path", DOCUMENTS)
def test_head_answers_the_gets_status_and_headers_without_the_body(port: int, path: str) -> None:
    token = {"Authorization": f"Bearer {TOKEN}"}
    status, headers, body = fetch(port, "GET", path, token)
    assert status == 200
    assert int(headers["Content-Length"]) == len(body) > 0
    head_status, head_headers, head_body = fetch(port, "HEAD", path, token)
    assert head_status == 200
    assert head_body == b""
    assert {name: head_headers.get(name) for name in SAME} == {name: headers.get(name) for name in SAME}
    if "oauth-protected-resource" not in path:  # the metadata needs no token; the others do, for HEAD too
        assert fetch(port, "HEAD", path, {})[0] == 401
    else:
        assert fetch(port, "HEAD", path, {})[0] == 200


@pytest.mark.parametrize("path", DOCUMENTS)
def test_options_is_the_cors_preflight_and_other_methods_are_405(port: int, path: str) -> None:
    preflight = {"Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET"}
    status, headers, _ = fetch(port, "OPTIONS", path, preflight)
    assert status == 204
    assert headers["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS"
    for method in ("POST", "PUT", "DELETE"):
        status, headers, _ = fetch(port, method, path, {"Authorization": f"Bearer {TOKEN}"})
        assert status == 405
        assert headers["Allow"] == "GET, HEAD, OPTIONS"


def test_head_of_the_root_is_its_get_without_the_body(port: int) -> None:
    token = {"Authorization": f"Bearer {TOKEN}"}
    status, headers, body = fetch(port, "GET", "/", token)
    assert status == 200
    assert int(headers["Content-Length"]) == len(body) > 0
    head_status, head_headers, head_body = fetch(port, "HEAD", "/", token)
    assert (head_status, head_body) == (200, b"")
    assert {name: head_headers.get(name) for name in SAME} == {name: headers.get(name) for name in SAME}
    assert fetch(port, "HEAD", "/", {})[0] == 401
    preflight = {"Origin": "http://localhost:3000", "Access-Control-Request-Method": "HEAD"}
    allowed = fetch(port, "OPTIONS", "/", preflight)[1]["Access-Control-Allow-Methods"]
    assert allowed == "GET, HEAD, POST, DELETE, OPTIONS"
