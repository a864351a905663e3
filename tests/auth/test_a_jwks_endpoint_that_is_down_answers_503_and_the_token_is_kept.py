"""A JWT issuer's key set that cannot be read (the endpoint refuses connections, or answers 5xx) is
not the token's fault: the request gets 503 with ``Retry-After`` (a client keeps its token and
retries), not 401 "invalid or expired" (a client drops a good token and re-authenticates in a loop).
The server logs one WARNING line naming the key set's URL, never the token; the next request before
the key set may be read again is answered 503 without another fetch or line. Once the issuer answers
again the same token is let in; a bad token with the key set readable stays 401; a token signed with
a key already held is still accepted while the issuer is down.

A fresh-user trial found the 401 (F9).
"""

from __future__ import annotations

import logging
import socket
import time

import httpx2
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from issuer import Issuer
from support import serve

from nanohubmcp import JWTVerifier, MCPServer
from nanohubmcp.auth import jwt as jwt_module

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def build(issuer: Issuer, jwks_url: str) -> MCPServer:
    server = MCPServer("jwks-down", auth=JWTVerifier(issuer=issuer.url, jwks_url=jwks_url))

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    return server


def ping(url: str, token: str) -> httpx2.Response:
    return httpx2.post(url + "mcp", json=PING, timeout=30,
                       headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})


def auth_lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "nanohubmcp.auth" and r.levelno == level]


def assert_unavailable(response: httpx2.Response) -> None:
    assert response.status_code == 503, response.text
    assert 1 <= int(response.headers["Retry-After"]) <= 10
    assert "WWW-Authenticate" not in response.headers  # not a challenge: the token is not refused


def test_a_refused_connection_to_the_key_set_is_503_with_retry_after(
        issuer: Issuer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp.auth")
    with socket.socket() as closed:  # bound, never listening: connections to it are refused
        closed.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{closed.getsockname()[1]}/.well-known/jwks.json"
        with serve(build(issuer, dead)) as url:
            token = issuer.mint(url.rstrip("/"))
            first, second = ping(url, token), ping(url, token)
            rest = httpx2.post(url + "tools/echo", json={"text": "hi"}, timeout=30,
                               headers={"Authorization": f"Bearer {token}"})
    for response in (first, second):
        assert_unavailable(response)
        error = response.json()["error"]
        assert error["data"]["retryAfter"] == int(response.headers["Retry-After"])
        assert "invalid or expired" not in error["message"]
        assert "key set cannot be read" in error["message"]
    assert_unavailable(rest)  # REST's own error body, the same status and header
    assert "key set cannot be read" in rest.json()["error"]
    warnings = auth_lines(caplog, logging.WARNING)
    assert len(warnings) == 1, warnings  # one attempt to read it, one line
    assert dead in warnings[0]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert token not in logged
    assert token.split(".")[-1] not in logged
    assert not auth_lines(caplog, logging.ERROR)  # not a broken verifier either


def test_a_key_set_answering_5xx_is_503_until_it_answers_then_the_token_is_let_in(
        issuer: Issuer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jwt_module, "REFETCH_SECONDS", 0.2)  # read it again soon after a failure
    caplog.set_level(logging.WARNING, logger="nanohubmcp.auth")
    issuer.failing = 502
    with serve(build(issuer, issuer.jwks_url)) as url:
        token = issuer.mint(url.rstrip("/"))
        assert_unavailable(ping(url, token))
        assert issuer.jwks_url in auth_lines(caplog, logging.WARNING)[0]
        assert "502" in auth_lines(caplog, logging.WARNING)[0]
        issuer.failing = None
        deadline = time.monotonic() + 20
        while (response := ping(url, token)).status_code == 503:
            assert time.monotonic() < deadline, "the key set was never read again"
            time.sleep(0.05)
        assert response.status_code == 200, response.text
        # Keys held: the issuer going down again does not refuse a token signed with one of them.
        issuer.failing = 503
        assert ping(url, issuer.mint(url.rstrip("/"), subject="bob")).status_code == 200


def test_a_bad_token_is_401_while_the_key_set_is_readable(issuer: Issuer, forged_key: rsa.RSAPrivateKey) -> None:
    with serve(build(issuer, issuer.jwks_url)) as url:
        audience = url.rstrip("/")
        # The unknown key id first: its request reads the key set, which lacks it (401). A key id new since
        # the last read, within REFETCH_SECONDS of it, is 503 instead (the key may have just rotated in):
        # see test_a_token_of_a_key_rotated_in_moments_ago_is_told_to_retry.py.
        for token in (issuer.mint(audience, key=forged_key, kid="other"), issuer.mint(audience, key=forged_key),
                      issuer.mint(audience, lifetime=-3600)):
            response = ping(url, token)
            assert response.status_code == 401, response.text
            assert response.json()["error"]["message"] == "Unauthorized: the bearer token is invalid or expired"
            assert "Retry-After" not in response.headers
