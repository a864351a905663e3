"""Fixtures of the auth tests: a running test issuer, a key it never published, and the JWT-guarded app
file that the stdio tests start with ``MCP_TOKEN`` (helpers in ``issuer.py`` and ``stdio_lab.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from issuer import Issuer
from stdio_lab import Lab


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    """A test OAuth issuer (RSA key ``k1``) whose key set is served on a loopback port during the test."""
    with Issuer() as running:
        yield running


@pytest.fixture
def forged_key() -> rsa.RSAPrivateKey:
    """An RSA key no key set holds: a token signed with it fails the signature check (under the issuer's key
    id) or the signing-key check (under an unknown one)."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture
def lab(issuer: Issuer) -> Lab:
    """``lab_app.py`` (a ``JWTVerifier`` trusting ``issuer``) ready to start over stdio."""
    return Lab(issuer)
