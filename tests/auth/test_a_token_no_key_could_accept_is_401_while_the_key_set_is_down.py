"""While the issuer's key set cannot be read, only a token that passes every check needing no key gets the
503 "retry shortly (keep the token)". A token no key could make valid is 401 "invalid or expired" at once,
and the key set is not even tried for it: ``alg: none``, an algorithm the verifier does not accept (HS256
signed with the issuer's public key, the algorithm-confusion forgery), an expired token (past the leeway), a
token not valid yet, the wrong issuer or audience, a missing required claim or subject, a malformed token.
A token expired within the leeway still waits for the keys (503), and a forged token with good claims is
never let in once the keys are read: the unverified claims only ever refuse.

A fresh-user trial found all of them answered 503 (trial25 F10).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import socket
import time
from collections.abc import Iterator

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from issuer import Issuer
from support import serve

from nanohubmcp import JWTVerifier, MCPServer

CLIENT_TEXT = "Unauthorized: the bearer token is invalid or expired"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hs256_with_public_key(issuer: Issuer, claims: dict[str, object]) -> str:
    """The algorithm-confusion forgery: HMAC-SHA256 keyed with the issuer's public key PEM (which anyone
    has). Built by hand: PyJWT refuses to use a PEM key as an HMAC secret."""
    pem = issuer.key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    signing_input = f"{b64(json.dumps({'alg': 'HS256', 'typ': 'JWT', 'kid': issuer.kid}).encode())}." \
                    f"{b64(json.dumps(claims).encode())}"
    return f"{signing_input}.{b64(hmac.new(pem, signing_input.encode(), hashlib.sha256).digest())}"


def claims_of(issuer: Issuer, audience: str) -> dict[str, object]:
    now = int(time.time())
    return {"iss": issuer.url, "sub": "mallory", "aud": audience, "iat": now, "exp": now + 300, "scope": ""}


@pytest.fixture
def dead_jwks_url() -> Iterator[str]:
    with socket.socket() as closed:  # bound, never listening: connections to it are refused
        closed.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{closed.getsockname()[1]}/.well-known/jwks.json"


def build(issuer: Issuer, jwks_url: str) -> MCPServer:
    server = MCPServer("jwks-down-hopeless", auth=JWTVerifier(issuer=issuer.url, jwks_url=jwks_url, leeway=30))

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    return server


def call(url: str, token: str) -> httpx2.Response:
    return httpx2.post(url + "tools/echo", json={"text": "hi"}, timeout=30,
                       headers={"Authorization": f"Bearer {token}"})


def ping(url: str, token: str) -> httpx2.Response:
    return httpx2.post(url + "mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30,
                       headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})


def hopeless_tokens(issuer: Issuer, audience: str, forged_key: rsa.RSAPrivateKey) -> dict[str, tuple[str, str]]:
    """Tokens no key could make valid: name -> (token, the check the server log names)."""
    now = int(time.time())
    return {
        "alg none": (jwt.encode(claims_of(issuer, audience), None, algorithm="none"), "algorithm"),
        "HS256 keyed with the public key": (hs256_with_public_key(issuer, claims_of(issuer, audience)), "algorithm"),
        "expired an hour ago": (issuer.mint(audience, lifetime=-3600), "expiry"),
        "not valid for an hour": (issuer.mint(audience, nbf=now + 3600), "not-before"),
        "wrong issuer": (issuer.mint(audience, issuer="http://evil.example"), "issuer"),
        "wrong audience": (issuer.mint("http://elsewhere.example"), "audience"),
        "no exp": (jwt.encode({k: v for k, v in claims_of(issuer, audience).items() if k != "exp"},
                              issuer.key, algorithm="RS256", headers={"kid": issuer.kid}), "required claim"),
        "no subject": (issuer.mint(audience, subject=""), "subject"),
        "forged key, wrong audience": (issuer.mint("http://elsewhere.example", key=forged_key, kid="k9"), "audience"),
        "malformed": ("not.a.jwt", "format"),
        "one segment": ("garbage", "format"),
        "payload not JSON": (".".join(b64(part) for part in (b'{"alg": "RS256"}', b"[1,", b"sig")), "format"),
    }


def test_tokens_no_key_could_accept_are_401_without_reading_the_key_set(
        issuer: Issuer, dead_jwks_url: str, forged_key: rsa.RSAPrivateKey,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp.auth")
    with serve(build(issuer, dead_jwks_url)) as url:
        audience = url.rstrip("/")
        for name, (token, check) in hopeless_tokens(issuer, audience, forged_key).items():
            caplog.clear()
            for response in (call(url, token), ping(url, token)):
                assert response.status_code == 401, (name, response.status_code, response.text)
                assert "Retry-After" not in response.headers, name
                assert "WWW-Authenticate" in response.headers, name
            assert ping(url, token).json()["error"]["message"] == CLIENT_TEXT, name
            lines = [r.getMessage() for r in caplog.records if r.name == "nanohubmcp.auth"]
            assert any(f"the {check} check failed" in line for line in lines), (name, lines)
            assert not [line for line in lines if "cannot read the key set" in line], (name, lines)  # not tried
            assert (token.split(".")[-1] or token) not in "\n".join(lines), name  # never the token

        # A token that passes everything needing no key waits for the keys: 503, keep it. So does one
        # expired 10 s ago (inside the 30 s leeway), and one with good claims signed by a forged key.
        for token in (issuer.mint(audience), issuer.mint(audience, lifetime=-10),
                      issuer.mint(audience, key=forged_key)):
            response = call(url, token)
            assert response.status_code == 503, response.text
            assert 1 <= int(response.headers["Retry-After"]) <= 10
            assert "keep the token" in response.json()["error"]


def test_unverified_claims_never_let_a_token_in_once_the_keys_are_read(
        issuer: Issuer, forged_key: rsa.RSAPrivateKey) -> None:
    with serve(build(issuer, issuer.jwks_url)) as url:
        audience = url.rstrip("/")
        assert call(url, issuer.mint(audience)).status_code == 200  # the keys are read and held
        for token in (issuer.mint(audience, key=forged_key), hs256_with_public_key(issuer, claims_of(issuer, audience)),
                      jwt.encode(claims_of(issuer, audience), None, algorithm="none")):
            response = call(url, token)
            assert response.status_code == 401, response.text
