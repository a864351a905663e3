"""``JWTVerifier``: OAuth 2.1 access tokens as signed JWTs, checked with PyJWT.

The token's signature is checked against the issuer's JSON Web Key Set (fetched from
``jwks_url`` and cached), then its issuer, audience (this server's resource URL, RFC 8707 /
MCP 2025-06-18 Authorization § Token Audience Binding), expiry and required scopes. Requires
the ``auth`` extra (``pip install 'nanohub-mcp[auth]'``: PyJWT with its crypto backend).

A refused token is explained to the server's operator, never to the client: the
``nanohubmcp.auth`` logger says at INFO which check failed (audience, issuer, expiry, signature,
...), with the token's own ``aud`` / ``iss`` beside the accepted ones where those failed; an audience
refusal at WARNING the first time a token's ``aud`` is seen (the accepted values: :mod:`.audiences`). The
token itself is never logged; the client only hears that the token is invalid or expired.

A key set that cannot be read (the endpoint refuses, times out, answers an error status or something
not a key set) is not the token's fault: a token signed with a key not already held, and passing every
check that needs no key (algorithm, expiry, not-before, issuer, audience, subject), is then answered 503
with ``Retry-After`` (:class:`KeySetUnavailable`), so a client keeps its token and tries again,
and the ``nanohubmcp.auth`` logger says at WARNING which URL failed, once per attempt to read it
(at most every :data:`REFETCH_SECONDS`). A key set answered without a usable key (``{"keys": []}``)
was read: a token it cannot check is refused (401). So is a token naming a key id the key set lacks
when it was read for that key id (and again until the next read); a key id new since the last read,
arriving before the key set may be read again (the issuer may have just rotated its key in), gets the
503 with ``Retry-After`` = the seconds until it may be, its message naming the key id, when the key set
was read and how often it may be (:class:`KeyNotReadYet`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
import time
import urllib.request
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from ..errors import ConfigurationError, ServerBusy
from ..server.wire.principal import Principal
from ..server.wire.scopes import parse_scopes
from .audiences import AudienceLog, accepted_audiences

log = logging.getLogger("nanohubmcp.auth")

DEFAULT_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA")
"""Asymmetric algorithms accepted by default (never ``none``, never HMAC with a public key)."""
MAX_JWKS_BYTES = 1 << 20
"""Largest JWKS document read."""
REFETCH_SECONDS = 10.0
"""An unknown key id triggers a refetch at most this often (key rotation without a flood)."""
MISSING_KEPT = 256
"""Key ids remembered as missing from the key set read last (a token naming one is 401 until the next
read); a key id beyond them, like one new since that read, is answered 503 until the key set may be read."""
REQUIRED_CLAIMS = ("exp", "iss", "aud")
"""Claims every token must carry."""
VERIFIED_KEPT = 1024
"""Verified tokens remembered (a client sends the same token on every request)."""
VERIFIED_SECONDS = 60.0
"""A remembered token is checked again after this long (and never past its ``exp``)."""


class KeySetUnavailable(ServerBusy):
    """The issuer's key set cannot be read, so a token signed with a key not held cannot be
    judged: HTTP 503 with ``Retry-After`` (the seconds until the key set is read again), never
    the 401 that would make a client drop a good token."""

    def __init__(self, retry_after: int, message: str | None = None) -> None:
        super().__init__(message or "Service Unavailable: the authorization server's key set cannot be read to "
                         "check the bearer token; retry shortly (keep the token)", retry_after=retry_after)


class KeyNotReadYet(KeySetUnavailable):
    """The token names a key id new since the key set was last read (read fine), inside the
    :data:`REFETCH_SECONDS` before it may be read again: the issuer may have just rotated the key
    in, so HTTP 503 with ``Retry-After`` (the seconds until the key set may be read), not 401.

    Args:
        kid: the token's key id (its JSON text is shown, cut at 60 characters: it is the client's).
        read_ago: seconds since the key set was read.
        retry_after: whole seconds until it may be read again (at least 1).
    """

    def __init__(self, kid: object, read_ago: float, retry_after: int) -> None:
        shown = json.dumps(kid, default=str)
        shown = shown if len(shown) <= 60 else shown[:59] + "…"
        super().__init__(
            retry_after,
            f"Service Unavailable: the bearer token names a key (kid {shown}) the authorization server's key set "
            f"lacked when read {max(0, math.floor(read_ago))} s ago; the key set is read again at most every "
            f"{REFETCH_SECONDS:g} s: retry in {retry_after} s (keep the token)",
        )


class JWTVerifier:
    """Verifies JWT access tokens issued by one authorization server.

    Args:
        issuer: the ``iss`` the tokens must carry (also advertised as the authorization server).
        jwks_url: where the issuer's JSON Web Key Set is (e.g. ``<issuer>/.well-known/jwks.json``).
        audience: the ``aud`` the tokens must carry (one string or several); None = this
            server's resource URL, which the server sets when it starts (see ``resource``).
        required_scopes: scopes every request needs (a token without them gets 403).
        scopes_supported: scopes advertised in the protected resource metadata.
        algorithms: accepted signature algorithms.
        leeway: seconds of clock skew tolerated on ``exp`` / ``nbf`` / ``iat``.
        jwks_ttl: seconds the key set is cached.
        subject_claim: the claim that names the principal.
        key: a public key (PEM string or key object) to use instead of fetching ``jwks_url``.

    Raises:
        ConfigurationError: PyJWT is not installed, or neither ``jwks_url`` nor ``key`` is given.
    """

    def __init__(
        self,
        *,
        issuer: str,
        jwks_url: str | None = None,
        audience: str | Iterable[str] | None = None,
        required_scopes: str | Iterable[str] | None = None,
        scopes_supported: str | Iterable[str] | None = None,
        algorithms: Iterable[str] = DEFAULT_ALGORITHMS,
        leeway: float = 30.0,
        jwks_ttl: float = 300.0,
        subject_claim: str = "sub",
        key: object = None,
    ) -> None:
        try:
            import jwt
        except ImportError:
            raise ConfigurationError(
                "JWTVerifier needs PyJWT: pip install 'nanohub-mcp[auth]' (or PyJWT[crypto])"
            ) from None
        if not jwks_url and key is None:
            raise ConfigurationError("JWTVerifier needs jwks_url= (the issuer's key set) or key=")
        self._jwt = jwt
        self.issuer = issuer
        self.jwks_url = jwks_url
        self.audience: list[str] | None = (
            [audience] if isinstance(audience, str) else (list(audience) if audience is not None else None)
        )
        self.required_scopes = parse_scopes(required_scopes)
        self.scopes_supported = parse_scopes(scopes_supported) or None
        self.authorization_servers = [issuer]
        self.algorithms = list(algorithms)
        self.leeway = leeway
        self.jwks_ttl = jwks_ttl
        self.subject_claim = subject_claim
        self._verified: OrderedDict[str, tuple[float, Principal]] = OrderedDict()
        self._resource: str | None = None
        self._audience_log = AudienceLog(log)
        self._key = key
        self._keys: dict[str | None, Any] = {}
        self._fetched = float("-inf")
        self._unreadable = False  # the last attempt to read the key set failed
        self._missing: set[str | None] = set()  # key ids the last read was looked at for, and lacks
        self._fetch_lock = threading.Lock()

    @property
    def resource(self) -> str | None:
        """The server's resource URL, the audience checked when none was configured."""
        return self._resource

    @resource.setter
    def resource(self, url: str | None) -> None:
        if url != self._resource:
            self._verified.clear()  # tokens were checked against the old audience
        self._resource = url

    def audiences(self) -> list[str] | None:
        """The ``aud`` values accepted (None: none known yet, every token is refused).

        Without ``audience=``: the server's resource URL, the same with a trailing slash (the public URL
        as written), and its MCP endpoints (``<url>/mcp``, ``<url>/sse``), which clients may name as the
        resource they want a token for: exact strings, no prefix matching.
        """
        if self.audience is not None:
            return self.audience
        if not self._resource:
            return None
        return accepted_audiences(self._resource)

    async def verify(self, token: str) -> Principal | None:
        """The principal of a valid token, or None (bad signature, issuer, audience, expired...).

        Raises:
            KeySetUnavailable: the token passes every check that needs no key, names a key not held,
                and the key set cannot be read now (the warning naming ``jwks_url`` is logged once per
                failed attempt), or, as its subclass
                :class:`KeyNotReadYet`, the key id is new since the key set was read moments ago and it
                may not be read again yet; HTTP 503 with ``Retry-After``, the seconds until it may.
        """
        known = self._verified.get(token)
        if known is not None:
            if time.time() < known[0]:
                return known[1]
            self._verified.pop(token, None)
        jwt = self._jwt
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError as exc:
            _refused("format", f"not a JWT: {exc}")
            return None
        key = self._key
        if key is None:
            kid = header.get("kid")
            key = self._cached_key(kid)
            if key is None and self._refused_whatever_the_key(token, header):
                return None  # no key could make it valid: 401, the key set need not be read
            if key is None:
                key, judged = await asyncio.to_thread(self._refresh_and_find, kid)
                if key is None and (self._unreadable or not judged):
                    # Not the token's fault: the key set cannot be read, or was read moments ago (before
                    # the key may have rotated in) and may not be read again yet. Say when to retry.
                    read_ago = time.monotonic() - self._fetched
                    wait = max(1, math.ceil(REFETCH_SECONDS - read_ago))
                    if self._unreadable:
                        raise KeySetUnavailable(wait)
                    raise KeyNotReadYet(kid, read_ago, wait)  # read fine: the key id is new since
                if key is None:
                    _refused("signing key", f"no key with kid {_shown(kid)} in the key set of {self.jwks_url}")
                    return None
        principal = self.decode(token, key)
        if principal is not None:
            self._remember(token, principal)
        return principal

    def _remember(self, token: str, principal: Principal) -> None:
        expires = principal.claims.get("exp")
        until = time.time() + VERIFIED_SECONDS
        if isinstance(expires, (int, float)):
            until = min(until, float(expires))
        self._verified[token] = (until, principal)
        while len(self._verified) > VERIFIED_KEPT:
            self._verified.popitem(last=False)

    def decode(self, token: str, key: object) -> Principal | None:
        """Check ``token`` with ``key``: signature, issuer, audience, expiry; None when invalid."""
        jwt = self._jwt
        audiences = self._audiences_or_refuse()
        if audiences is None:
            return None
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=self.algorithms,
                audience=audiences,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": list(REQUIRED_CLAIMS)},
            )
        except jwt.PyJWTError as exc:
            self._explain(token, exc, audiences)
            return None
        caller = self._caller(claims)
        return None if caller is None else Principal(caller[0], caller[1], claims)

    def _refused_whatever_the_key(self, token: str, header: dict[str, Any]) -> bool:
        """True (the reason logged) when ``token`` fails a check no key takes part in: an algorithm not
        accepted (``none``, HMAC, ...), expiry / not-before (with the leeway), issuer, audience, a required
        claim, the subject or the scopes. Decided before the key set is read, so a token no key could make
        valid is 401 even while the key set cannot be read. False never accepts anything: the token is
        then checked in full, signature first, by :meth:`decode`."""
        jwt = self._jwt
        algorithm = header.get("alg")
        if algorithm not in self.algorithms:
            _refused("algorithm", f"the token's alg {_shown(algorithm)} is not one of {_shown(self.algorithms)}")
            return True
        audiences = self._audiences_or_refuse()
        if audiences is None:
            return True
        verify = ("verify_exp", "verify_nbf", "verify_iat", "verify_aud", "verify_iss")
        try:
            claims = jwt.decode(  # signature unchecked: these claims may only refuse the token
                token,
                audience=audiences,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"verify_signature": False, "require": list(REQUIRED_CLAIMS), **dict.fromkeys(verify, True)},
            )
        except jwt.PyJWTError as exc:
            self._explain(token, exc, audiences)
            return True
        return self._caller(claims) is None

    def _audiences_or_refuse(self) -> list[str] | None:
        audiences = self.audiences()
        if audiences is None:  # no audience known: refuse rather than accept tokens meant for anyone
            _refused("audience", "this server's resource URL is not known: pass public_url= or JWTVerifier(audience=)")
        return audiences

    def _caller(self, claims: dict[str, Any]) -> tuple[str, frozenset[str]] | None:
        """The subject and scopes ``claims`` name, or None (logged) when they name no caller."""
        subject = claims.get(self.subject_claim)
        if not isinstance(subject, str) or not subject:
            _refused("subject", f"no {self.subject_claim!r} claim naming the caller")
            return None
        try:
            subject.encode()
        except UnicodeEncodeError:  # a lone surrogate: no store could keep the name, nor match it back
            _refused("subject", f"the {self.subject_claim!r} claim is not valid Unicode (a lone UTF-16 surrogate)")
            return None
        try:
            scopes = parse_scopes(claims.get("scope", claims.get("scp")))
        except ValueError as exc:
            _refused("scope", str(exc))
            return None
        return subject, frozenset(scopes)

    def _explain(self, token: str, exc: Exception, audiences: list[str]) -> None:
        """Log which of PyJWT's checks refused ``token`` (never the token itself)."""
        jwt = self._jwt
        checks = (
            (jwt.ExpiredSignatureError, "expiry"),
            (jwt.ImmatureSignatureError, "not-before"),
            (jwt.InvalidAudienceError, "audience"),
            (jwt.InvalidIssuerError, "issuer"),
            (jwt.MissingRequiredClaimError, "required claim"),
            (jwt.InvalidSignatureError, "signature"),
            (jwt.InvalidAlgorithmError, "algorithm"),
            (jwt.InvalidIssuedAtError, "issued-at"),
            (jwt.InvalidKeyError, "signing key"),
            (jwt.DecodeError, "format"),
        )
        check = next((name for kind, name in checks if isinstance(exc, kind)), "token")
        detail = str(exc)
        if check in ("audience", "issuer"):
            try:
                claims = jwt.decode(token, options={"verify_signature": False})
            except jwt.PyJWTError:
                claims = {}
            claim, accepted = ("aud", audiences) if check == "audience" else ("iss", [self.issuer])
            detail += f": the token has {claim}={_shown(claims.get(claim))}, this server accepts {_shown(accepted)}"
            if check == "audience":  # the operator's setting, most likely: said at the default level
                self._audience_log.refused(_shown(claims.get(claim)), detail)
                return
        _refused(check, detail)

    # -- the key set -----------------------------------------------------------------------
    def _cached_key(self, kid: str | None) -> Any:
        if time.monotonic() - self._fetched > self.jwks_ttl:
            return None
        return self._keys.get(kid) if kid is not None or len(self._keys) != 1 else next(iter(self._keys.values()))

    def _refresh_and_find(self, kid: str | None) -> tuple[Any, bool]:
        """Fetch the key set (worker thread) unless fetched moments ago: the key for ``kid`` (None when
        not held), and whether the key set read last was looked at for ``kid`` (False: ``kid`` is new
        since that read, within :data:`REFETCH_SECONDS` of it, so a key published since is not known yet)."""
        with self._fetch_lock:
            key = self._cached_key(kid)
            if key is not None:
                return key, True
            if time.monotonic() - self._fetched > REFETCH_SECONDS:  # failures too: no fetch flood
                self._keys = self._fetch()
                self._fetched = time.monotonic()
                self._missing.clear()
            elif kid not in self._missing:
                return None, False
            key = self._cached_key(kid)
            if key is None and len(self._missing) < MISSING_KEPT:
                self._missing.add(kid)  # this read lacks it: 401 again until the next read
            return key, True

    def _fetch(self) -> dict[str | None, Any]:
        assert self.jwks_url is not None
        data: Any = None
        try:
            with urllib.request.urlopen(self.jwks_url, timeout=10) as response:
                data = json.loads(response.read(MAX_JWKS_BYTES + 1)[:MAX_JWKS_BYTES])
            keys = self._jwt.PyJWKSet.from_dict(data).keys
        except (OSError, ValueError, self._jwt.PyJWTError) as exc:
            log.warning("cannot read the key set at %s: %s", self.jwks_url, exc)
            # A key set answered without a usable key ({"keys": []}: rotated away, misconfigured) was
            # read: a token it cannot check is refused (401). Anything else waits for the issuer (503).
            self._unreadable = not (isinstance(data, dict) and isinstance(data.get("keys"), list))
            return self._keys  # keep what we had
        self._unreadable = False
        return {k.key_id: k.key for k in keys}

    def __repr__(self) -> str:
        return f"JWTVerifier(issuer={self.issuer!r}, audience={self.audience!r})"


def _refused(check: str, detail: str) -> None:
    log.info("refused a JWT: the %s check failed (%s)", check, detail)


def _shown(value: object) -> str:
    """A claim for the log: JSON, cut at 200 characters (claims come from the client)."""
    text = json.dumps(value, default=str)
    return text if len(text) <= 200 else text[:199] + "…"
