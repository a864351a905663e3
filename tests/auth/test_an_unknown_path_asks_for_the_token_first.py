"""On a server with authorization, a request without a valid token to a path no route serves gets the
401 (and ``WWW-Authenticate``) every route answers, not a 404: a caller without a token learns that a
token is needed, not which paths exist. With the token it is the 404 that says what exists. A CORS
preflight and a path under ``/.well-known/`` (what a client probes before it has a token: an OAuth
client takes a 404 for "no authorization server metadata here") still get the 404 without one, and the
probes ``/healthz`` and ``/readyz`` and the RFC 9728 metadata still answer without a token.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from support import serve

from nanohubmcp import MCPServer, Principal
from nanohubmcp.errors import ServerBusy

TOKEN = "unknown-path-token"


def request(base: str, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, http.client.HTTPMessage, bytes]:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request(method, path, body, headers or {})
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve(MCPServer("guarded-paths"), token=TOKEN) as url:
        yield url


@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"])
def test_an_unknown_path_without_a_token_is_401_naming_the_metadata(base: str, method: str) -> None:
    body = b'{"a": 1}' if method in ("POST", "PUT", "PATCH") else None
    status, headers, raw = request(base, method, "/no-such-route", body, {"Content-Type": "application/json"})
    assert status == 401, raw
    assert headers["WWW-Authenticate"] == f'Bearer resource_metadata="{base}.well-known/oauth-protected-resource"'
    if method != "HEAD":
        assert json.loads(raw) == {"error": "Unauthorized: send 'Authorization: Bearer <token>'"}  # as GET /'s
    assert b"no-such-route" not in raw  # the path is not echoed to a caller without a token


def test_a_wrong_token_is_401_invalid_token_and_the_right_one_gets_the_404(base: str) -> None:
    status, headers, _ = request(base, "GET", "/no-such-route", headers={"Authorization": "Bearer wrong"})
    assert status == 401
    assert 'error="invalid_token"' in headers["WWW-Authenticate"]
    status, headers, raw = request(base, "GET", "/no-such-route", headers={"Authorization": f"Bearer {TOKEN}"})
    assert status == 404
    assert "WWW-Authenticate" not in headers
    assert json.loads(raw) == {"error": "No route for GET /no-such-route; see GET / for the endpoints"}


@pytest.mark.parametrize("path", ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration",
                                  "/.well-known/oauth-protected-resource-nope", "/.well-known"])
def test_a_well_known_probe_gets_the_404_without_a_token(base: str, path: str) -> None:
    status, headers, raw = request(base, "GET", path)
    assert status == 404, raw
    assert "WWW-Authenticate" not in headers


def test_a_preflight_to_an_unknown_path_needs_no_token(base: str) -> None:
    origin = "http://127.0.0.1:5173"
    status, headers, _ = request(base, "OPTIONS", "/no-such-route", headers={
        "Origin": origin, "Access-Control-Request-Method": "GET"})
    assert status == 404
    assert "WWW-Authenticate" not in headers


def test_a_refused_origin_is_403_before_the_token_on_an_unknown_path(base: str) -> None:
    status, _, raw = request(base, "GET", "/no-such-route", headers={"Origin": "http://evil.example"})
    assert status == 403, raw


def test_the_public_routes_still_answer_without_a_token(base: str) -> None:
    assert request(base, "GET", "/healthz")[:1] == (200,)
    assert request(base, "GET", "/readyz")[:1] == (200,)
    assert request(base, "GET", "/.well-known/oauth-protected-resource")[0] == 200


def test_a_prefixed_server_asks_for_the_token_outside_its_prefix_too() -> None:
    with serve(MCPServer("prefixed-paths"), token=TOKEN, path_prefix="/calc") as url:
        assert request(url, "GET", "/elsewhere")[0] == 401
        assert request(url, "GET", "/calc/elsewhere")[0] == 401
        assert request(url, "GET", "/calc/.well-known/oauth-authorization-server")[0] == 404
        assert request(url, "GET", "/.well-known/oauth-protected-resource/elsewhere")[0] == 404
        assert request(url, "GET", "/.well-known/oauth-protected-resource/calc")[0] == 200
        assert request(url, "GET", "/calc/elsewhere", headers={"Authorization": f"Bearer {TOKEN}"})[0] == 404
        # the prefix in another spelling is the prefix (trial38 T8: %61 is a)
        assert request(url, "GET", "/c%61lc/.well-known/oauth-authorization-server")[0] == 404
        assert request(url, "GET", "/c%61lc/elsewhere")[0] == 401


def test_without_authorization_an_unknown_path_is_404() -> None:
    with serve(MCPServer("open-paths"), token="") as url:
        status, _, raw = request(url, "GET", "/no-such-route")
        assert status == 404
        assert json.loads(raw) == {"error": "No route for GET /no-such-route; see GET / for the endpoints"}


def test_a_verifier_that_cannot_judge_now_is_503_on_an_unknown_path_too() -> None:
    class Busy:
        def verify(self, token: str) -> Principal | None:
            raise ServerBusy("the key set cannot be read now", retry_after=7)

    with serve(MCPServer("busy-paths", auth=Busy())) as url:
        status, headers, raw = request(url, "GET", "/no-such-route", headers={"Authorization": "Bearer x"})
    assert status == 503, raw
    assert headers["Retry-After"] == "7"
    body: Any = json.loads(raw)
    assert body == {"error": "the key set cannot be read now"}
