"""With a token configured, every route answers 401 + ``WWW-Authenticate: Bearer
resource_metadata="…"`` to a request without a valid one (MCP 2025-06-18+, Authorization;
RFC 9728 § 5.1); CORS preflights, 405s and the metadata document itself need no token."""

from __future__ import annotations

import http.client
import json
import logging
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from support import banner_of, serve

from nanohubmcp import MCPServer

TOKEN = "s3cret-token"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
ROUTES = [
    ("GET", "/", None),
    ("POST", "/", INIT),
    ("DELETE", "/", None),
    ("POST", "/mcp", INIT),
    ("GET", "/mcp", None),
    ("DELETE", "/mcp", None),
    ("GET", "/sse", None),
    ("POST", "/messages/?session_id=abc", INIT),
    ("POST", "/?session_id=abc", INIT),
    ("POST", "/tools/add", {"a": 1, "b": 2}),
    ("GET", "/openapi.json", None),
    ("GET", "/.well-known/mcp.json", None),
    ("GET", "/mcp/server-card", None),
    ("GET", "/.well-known/mcp/catalog.json", None),
    ("GET", "/.well-known/ai-catalog.json", None),
    ("GET", "/no-such-route", None),  # a path no route serves: the token first, then the 404
]


def request(
    url: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, http.client.HTTPMessage, bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **(headers or {})}
    conn.request(method, parts.path.rstrip("/") + path, None if body is None else json.dumps(body), sent)
    response = conn.getresponse()
    try:
        return response.status, response.headers, response.read()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server = MCPServer("guarded")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    with serve(server, token=TOKEN) as base:
        yield base


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_a_request_without_a_token_gets_401_naming_the_metadata(url: str, method: str, path: str, body: Any) -> None:
    status, headers, raw = request(url, method, path, body)
    assert status == 401, raw
    challenge = headers["WWW-Authenticate"]
    assert challenge == f'Bearer resource_metadata="{url}.well-known/oauth-protected-resource"'
    assert "Authorization: Bearer" in raw.decode()


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_a_wrong_token_gets_401_invalid_token(url: str, method: str, path: str, body: Any) -> None:
    status, headers, _ = request(url, method, path, body, {"Authorization": "Bearer not-the-token"})
    assert status == 401
    assert 'error="invalid_token"' in headers["WWW-Authenticate"]
    assert "resource_metadata=" in headers["WWW-Authenticate"]


JSON_RPC_ROUTES = {("POST", "/"), ("DELETE", "/"), ("POST", "/mcp"), ("GET", "/mcp"), ("DELETE", "/mcp"),
                   ("GET", "/sse"), ("POST", "/messages/?session_id=abc"), ("POST", "/?session_id=abc")}
"""The MCP endpoints (their refusals are JSON-RPC error responses); the others — ``GET /``'s info document,
REST and the documents — answer ``{"error": message}``, as their own 404 and 405 do."""


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_a_401_has_the_body_shape_of_the_routes_other_errors(url: str, method: str, path: str, body: Any) -> None:
    status, _, raw = request(url, method, path, body, {"Authorization": "Bearer not-the-token"})
    assert status == 401
    message = "Unauthorized: the bearer token is invalid or expired"
    if (method, path) in JSON_RPC_ROUTES:
        assert json.loads(raw) == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    else:
        assert json.loads(raw) == {"error": message}


@pytest.mark.parametrize("path", ["/", "/openapi.json", "/.well-known/mcp.json", "/mcp/server-card"])
def test_a_document_refused_for_its_origin_answers_as_its_405_does(url: str, path: str) -> None:
    status, _, raw = request(url, "GET", path, headers={"Origin": "http://evil.example"})
    assert status == 403
    assert json.loads(raw) == {
        "error": "Forbidden: origin http://evil.example is not allowed; add it to allowed_origins to permit it"}
    if path != "/":  # (POST / is JSON-RPC)
        status, _, raw = request(url, "POST", path, {})
        assert status == 405
        assert set(json.loads(raw)) == {"error"}


@pytest.mark.parametrize(
    ("scheme", "problem"),
    [
        ("Basic", "the Authorization header uses the Basic scheme"),
        ("token", "the Authorization header uses the token scheme"),
        ("", "the Authorization header does not start with 'Bearer '"),  # the token is never echoed
    ],
)
def test_a_token_under_another_scheme_is_refused_naming_the_scheme(url: str, scheme: str, problem: str) -> None:
    status, headers, raw = request(url, "POST", "/mcp", INIT, {"Authorization": f"{scheme} {TOKEN}".strip()})
    assert status == 401
    assert json.loads(raw)["error"]["message"] == f"Unauthorized: {problem}: send 'Authorization: Bearer <token>'"
    # RFC 6750 § 3.1: a request using an unsupported authentication method gets no error code.
    assert headers["WWW-Authenticate"] == f'Bearer resource_metadata="{url}.well-known/oauth-protected-resource"'


def test_the_right_token_is_served_on_every_kind_of_route(url: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert request(url, "GET", "/", headers=auth)[0] == 200
    assert request(url, "GET", "/openapi.json", headers=auth)[0] == 200
    assert request(url, "GET", "/.well-known/mcp.json", headers=auth)[0] == 200
    status, _, raw = request(url, "POST", "/tools/add", {"a": 2, "b": 3}, {**auth, "Accept": "application/json"})
    assert (status, json.loads(raw)["result"]) == (200, "5")  # REST text result, as the 0.4 API
    status, headers, _ = request(url, "POST", "/mcp", INIT, {**auth, "Accept": "application/json"})
    assert status == 200
    assert headers["Mcp-Session-Id"]
    # The scheme name is case-insensitive (RFC 9110 § 11.1).
    assert request(url, "GET", "/", headers={"Authorization": f"bearer {TOKEN}"})[0] == 200


def test_a_cors_preflight_is_answered_without_a_token(url: str) -> None:
    origin = "http://127.0.0.1:5173"
    status, headers, _ = request(
        url,
        "OPTIONS",
        "/mcp",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert status == 204
    assert "Authorization" in headers["Access-Control-Allow-Headers"]


def test_a_browser_client_can_read_the_challenge(url: str) -> None:
    status, headers, _ = request(url, "POST", "/mcp", INIT, {"Origin": "http://localhost:6274"})
    assert status == 401
    assert "WWW-Authenticate" in headers["Access-Control-Expose-Headers"]


def test_a_method_the_route_lacks_gets_405_before_authorization(url: str) -> None:
    status, headers, _ = request(url, "PUT", "/mcp", {})
    assert status == 405
    assert "POST" in headers["Allow"]
    assert request(url, "GET", "/tools/add")[0] == 405


@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"])
def test_the_metadata_document_has_rfc_9728s_fields_and_needs_no_token(url: str, path: str) -> None:
    status, headers, raw = request(url, "GET", path)
    assert status == 200
    assert headers["Content-Type"].startswith("application/json")
    document = json.loads(raw)
    # RFC 9728 § 2: resource is REQUIRED, an https/http URL with no fragment; the rest optional arrays.
    # § 3.3: it is the URL the well-known suffix names (the path-aware form names /mcp).
    assert document["resource"] == url.rstrip("/") + path.removeprefix("/.well-known/oauth-protected-resource")
    assert "#" not in document["resource"]
    assert set(document["bearer_methods_supported"]) <= {"header", "body", "query"}
    for key in ("authorization_servers", "scopes_supported"):
        assert isinstance(document.get(key, []), list)


def test_without_authorization_there_is_no_metadata_and_no_401() -> None:
    server = MCPServer("open")
    with serve(server, token="") as base:
        assert request(base, "GET", "/.well-known/oauth-protected-resource")[0] == 404
        assert request(base, "GET", "/")[0] == 200


def test_metadata_and_challenge_use_the_public_url() -> None:
    server = MCPServer("proxied")
    public = "https://proxy.example.org/weber/12/abc/3/"
    with serve(server, token=TOKEN, path_prefix="/weber/12/abc/3", public_url=public) as base:
        local = base  # the public URL; requests go to the local port under the prefix
        port = server.port
        conn_base = f"http://127.0.0.1:{port}/weber/12/abc/3/"
        status, headers, _ = request(conn_base, "POST", "/mcp", INIT)
        assert status == 401
        assert f'resource_metadata="{public}.well-known/oauth-protected-resource"' in headers["WWW-Authenticate"]
        status, _, raw = request(conn_base, "GET", "/.well-known/oauth-protected-resource")
        assert status == 200
        assert json.loads(raw)["resource"] == public.rstrip("/")
        # Path-aware, with the suffix RFC 9728 § 3.1 inserts (the resource's own path) or a relative one.
        status, _, raw = request(conn_base, "GET", "/.well-known/oauth-protected-resource/weber/12/abc/3/mcp")
        assert json.loads(raw)["resource"] == public + "mcp"
        status, _, raw = request(conn_base, "GET", "/.well-known/oauth-protected-resource/mcp")
        assert json.loads(raw)["resource"] == public + "mcp"
        assert local == public


def test_the_mcp_token_environment_variable_is_the_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TOKEN", "from-env")
    server = MCPServer("env")
    with serve(server) as base:
        assert server.token == "from-env"
        assert request(base, "GET", "/")[0] == 401
        assert request(base, "GET", "/", headers={"Authorization": "Bearer from-env"})[0] == 200


def test_binding_every_interface_without_authorization_warns(caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("wide")
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"), serve(server, host="0.0.0.0", token=""):
        pass
    assert re.search(r"no authorization.*token=", caplog.text)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="nanohubmcp"), serve(server, host="0.0.0.0", token=TOKEN):
        pass
    assert "no authorization" not in caplog.text


def test_a_session_belongs_to_the_principal_that_opened_it() -> None:
    from nanohubmcp import StaticTokenVerifier

    class TwoUsers:
        alice = StaticTokenVerifier({"alice-token": "alice"})
        bob = StaticTokenVerifier({"bob-token": "bob"})

        def verify(self, token: str) -> Any:
            return self.alice.verify(token) or self.bob.verify(token)

    server = MCPServer("shared", auth=TwoUsers())
    with serve(server) as base:
        alice = {"Authorization": "Bearer alice-token", "Accept": "application/json"}
        status, headers, _ = request(base, "POST", "/mcp", INIT, alice)
        assert status == 200
        sid = headers["Mcp-Session-Id"]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        assert request(base, "POST", "/mcp", ping, {**alice, "Mcp-Session-Id": sid})[0] == 200
        bob = {"Authorization": "Bearer bob-token", "Accept": "application/json", "Mcp-Session-Id": sid}
        status, _, raw = request(base, "POST", "/mcp", ping, bob)
        assert status == 404, raw  # as if it did not exist: bob learns nothing about alice's session
        assert request(base, "DELETE", "/mcp", None, bob)[0] == 404
        assert request(base, "POST", "/mcp", ping, {**alice, "Mcp-Session-Id": sid})[0] == 200


def test_the_metadata_names_the_server(url: str) -> None:
    _, _, raw = request(url, "GET", "/.well-known/oauth-protected-resource")
    assert json.loads(raw)["resource_name"] == "guarded"  # RFC 9728 § 2, human-readable


def test_a_script_with_mcp_token_says_how_clients_authenticate() -> None:
    script = 'from nanohubmcp import MCPServer\nMCPServer("banner").run(port=0)\n'
    out, _ = banner_of(script, "/.well-known/oauth-protected-resource", env={"MCP_TOKEN": "banner-token"})
    assert "Authorization: every request sends 'Authorization: Bearer <token>'" in out
    assert "/.well-known/oauth-protected-resource" in out
    assert "banner-token" not in out  # the banner never prints the secret
