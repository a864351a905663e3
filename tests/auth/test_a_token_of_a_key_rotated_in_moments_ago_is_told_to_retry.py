"""A token signed with a key the server does not hold yet, arriving before the key set may be read
again (at most every ``REFETCH_SECONDS``), is answered 503 with ``Retry-After`` (the seconds until the
next read), not 401 "invalid or expired": the issuer may have rotated its key moments ago, and a client
told its fresh token is invalid drops it (trial16 F7). Once the key set may be read again, the new key
is fetched and the same token is let in; a key id the freshly read key set does not hold is 401.
Everything runs against a real JWKS endpoint on a loopback port.
"""

from __future__ import annotations

import json
import re

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from issuer import Issuer
from support import serve

from nanohubmcp import JWTVerifier, MCPServer
from nanohubmcp.auth import jwt as jwt_module

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def ping(url: str, token: str) -> httpx2.Response:
    return httpx2.post(url + "mcp", json=PING, timeout=30,
                       headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})  # fmt: skip


def rotate(issuer: Issuer, kid: str) -> None:
    """The issuer signs with a new key from now on and publishes it beside the old one."""
    issuer.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    issuer.kid = kid
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(issuer.key.public_key()))
    issuer.jwks = {"keys": [*issuer.jwks["keys"], {**jwk, "kid": kid, "use": "sig", "alg": "RS256"}]}


def test_a_new_key_id_inside_the_refetch_window_is_503_then_accepted(
    issuer: Issuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = MCPServer("rotation", auth=JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url))
    with serve(server) as url:
        audience = url.rstrip("/")
        assert ping(url, issuer.mint(audience)).status_code == 200  # the key set read once, k1 held
        assert issuer.fetches == 1
        rotate(issuer, "k2")
        fresh = issuer.mint(audience)
        response = ping(url, fresh)
        assert response.status_code == 503, response.text
        assert 1 <= int(response.headers["Retry-After"]) <= jwt_module.REFETCH_SECONDS
        assert "WWW-Authenticate" not in response.headers  # not a challenge: the token is not refused
        error = response.json()["error"]
        assert error["data"]["retryAfter"] == int(response.headers["Retry-After"])
        assert "invalid or expired" not in error["message"]
        # The key set was read fine: the message says the key id is new, not that the set "cannot be read"
        # (trial19 F10), and when to retry.
        assert "cannot be read" not in error["message"]
        retry = response.headers["Retry-After"]
        assert re.search(
            r'names a key \(kid "k2"\) the authorization server\'s key set lacked when read \d+ s ago; the key set is '
            rf"read again at most every 10 s: retry in {retry} s \(keep the token\)",
            error["message"],
        ), error["message"]
        assert issuer.fetches == 1  # no fetch flood: the window holds
        monkeypatch.setattr(jwt_module, "REFETCH_SECONDS", 0.0)  # the window is over
        assert ping(url, fresh).status_code == 200
        assert issuer.fetches == 2


def test_a_key_id_the_key_set_was_read_for_and_lacks_is_401(issuer: Issuer) -> None:
    server = MCPServer("rotation", auth=JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url))
    with serve(server) as url:
        audience = url.rstrip("/")
        for _ in range(2):  # read for it, then remembered as missing until the next read
            response = ping(url, issuer.mint(audience, kid="nowhere"))
            assert response.status_code == 401, response.text
        assert ping(url, issuer.mint(audience, kid="elsewhere")).status_code == 503  # new since the read
    assert issuer.fetches == 1
