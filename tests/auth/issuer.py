"""A test OAuth issuer: an RSA key pair, its JWKS served on a loopback port, and ``mint()``
for access tokens (RFC 9068 claims) signed with it."""

from __future__ import annotations

import http.server
import json
import threading
import time
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa


class Issuer:
    """``with Issuer() as issuer:`` serves ``issuer.jwks_url`` until the block ends."""

    def __init__(self, kid: str = "k1") -> None:
        self.kid = kid
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.fetches = 0
        self.failing: int | None = None
        """An HTTP status the key set is answered with instead of the keys (a 5xx: the issuer is down)."""
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwks = {"keys": [{**jwk, "kid": kid, "use": "sig", "alg": "RS256"}]}
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.fetches += 1
                if outer.failing is not None:
                    self.send_error(outer.failing)
                    return
                body = json.dumps(outer.jwks).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.jwks_url = f"{self.url}/.well-known/jwks.json"

    def __enter__(self) -> Issuer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def mint(
        self,
        audience: str,
        *,
        subject: str = "alice",
        scope: str = "",
        lifetime: float = 300,
        issuer: str | None = None,
        key: Any = None,
        kid: str | None = None,
        **claims: Any,
    ) -> str:
        now = int(time.time())
        payload = {
            "iss": issuer or self.url,
            "sub": subject,
            "aud": audience,
            "iat": now,
            "exp": now + int(lifetime),
            "scope": scope,
            **claims,
        }
        return jwt.encode(payload, key or self.key, algorithm="RS256", headers={"kid": kid or self.kid})
