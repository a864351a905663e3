"""A JWT the server refuses is explained in the server's log (``nanohubmcp.auth``, INFO): which
check failed — audience (with the token's ``aud`` and the accepted ones), issuer, expiry,
signature, signing key, format, subject — and never the token itself; the client's 401 text
stays the same for every reason (nothing leaks to the caller)."""

from __future__ import annotations

import logging

import httpx2
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from issuer import Issuer
from support import serve

from nanohubmcp import JWTVerifier, MCPServer

CLIENT_TEXT = "Unauthorized: the bearer token is invalid or expired"


def refusal(url: str, token: str) -> str:
    response = httpx2.post(url + "mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                           headers={"Authorization": f"Bearer {token}", "Accept": "application/json"}, timeout=10)
    assert response.status_code == 401
    return response.json()["error"]["message"]


def test_each_refused_jwt_names_its_failed_check_in_the_log(
    issuer: Issuer, forged_key: rsa.RSAPrivateKey, caplog: pytest.LogCaptureFixture
) -> None:
    server = MCPServer("jwt-log", auth=JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url))
    caplog.set_level(logging.INFO, logger="nanohubmcp.auth")
    with serve(server) as url:
        audience = url.rstrip("/")
        cases = [  # the unknown key id first: its request reads the key set (a new one later would be 503)
            (issuer.mint(audience, key=forged_key, kid="unknown"), ["signing key check failed", '"unknown"']),
            (issuer.mint(audience + "/x"), ["audience check failed", f'"{audience}/x"', f'"{audience}"']),
            (issuer.mint(audience, issuer="http://evil.example"), ["issuer check failed", "http://evil.example"]),
            (issuer.mint(audience, lifetime=-3600), ["expiry check failed"]),
            (issuer.mint(audience, key=forged_key), ["signature check failed"]),
            ("not.a.jwt", ["format check failed"]),
            (issuer.mint(audience, subject=""), ["subject check failed"]),
            # A lone UTF-16 surrogate (valid JSON) names no one any store can keep: after a restart the
            # principal read back would not be the one that made its jobs and records (a trial finding).
            (issuer.mint(audience, subject="\ud800bob"), ["subject check failed", "not valid Unicode"]),
        ]
        for token, expected in cases:
            caplog.clear()
            assert refusal(url, token) == CLIENT_TEXT
            logged = "\n".join(r.getMessage() for r in caplog.records if r.name == "nanohubmcp.auth")
            for text in expected:
                assert text in logged
            assert token not in logged
            assert token.split(".")[-1] not in logged  # not even the signature
