"""Who calls over stdio: with ``auth=``, the token in the environment, checked once before serving.

MCP 2025-11-25, Basic § Authorization: implementations using the stdio transport "SHOULD NOT follow
this specification, and instead retrieve credentials from the environment". A server given ``auth=``
and served over stdio has no HTTP request to read a bearer token from, so it reads the token from
``$MCP_TOKEN`` (:data:`~nanohubmcp.auth.verifiers.MCP_TOKEN_ENV`: what a desktop entry's ``env`` holds,
the variable the bridge and ``demo_client.py`` read too), asks the configured verifier once, and the
principal it grants is the caller of every request the process serves: per-tool ``scopes=`` are
checked as over HTTP (the same ``-32003`` refusal, :class:`~nanohubmcp.errors.InsufficientScope`)
and a tool's ``ctx.principal`` is that caller.

``auth=`` says the server must not serve anonymously, so a token that is unset, empty, too long or
refused stops the server before it reads its first line: :class:`~nanohubmcp.errors.ConfigurationError`,
one line naming the variable and why (a refusing verifier's logged reason — a JWT's failed check — is
quoted; the token never is). A verifier that cannot judge the token now (a JWT issuer's key set
unreadable: :class:`~nanohubmcp.errors.ServerBusy`) stops it too, saying so.

The token's signature is checked once, but a token that expires is not honoured past its expiry
(:func:`token_expiry`: the principal's ``exp`` claim, which a ``JWTVerifier``'s always carries, plus
the verifier's ``leeway``, the instant HTTP refuses the same token from): each request read after it
is answered with the error an HTTP client gets for an expired token, ``-32600`` "Unauthorized: the
bearer token is invalid or expired" (there is no 401 to send), and the server says once on stderr
(the ``nanohubmcp.auth`` logger, WARNING) that the token expired and that the server must be started
again with a fresh one. Requests read before it run to their end; notifications and answers to the
server's own requests are still taken. Checking costs one clock reading and one comparison per
request; a token without ``exp`` (a static token) costs nothing.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeGuard

from ..auth.verifiers import MAX_TOKEN_LENGTH, MCP_TOKEN_ENV, TokenVerifier
from ..errors import ConfigurationError, ProtocolError, ServerBusy, Unauthorized, error_response
from ..protocol import jsonrpc
from ..server.wire.principal import Principal
from .auth import INVALID_TOKEN, authenticate, verifier_name

__all__ = ["TokenExpiry", "environment_principal", "token_expiry"]

log = logging.getLogger("nanohubmcp.auth")

RESTART = (
    f"start the server again with a fresh token in {MCP_TOKEN_ENV} (a desktop client's entry holds it in its "
    '"env"; `nanohubmcp desktop-config APP --token-file PATH` prints an entry with a new one)'
)
"""What to do once the token expired: a stdio server's caller is fixed for the life of its process."""


async def environment_principal(verifier: TokenVerifier, environ: Mapping[str, str] | None = None) -> Principal:
    """The principal ``verifier`` grants the token in ``$MCP_TOKEN`` (of ``environ``, default ``os.environ``).

    Surrounding whitespace (a trailing newline from a file) is stripped, as for a token file.

    Raises:
        ConfigurationError: ``$MCP_TOKEN`` is unset or empty, longer than 16 KiB, refused by the
            verifier (the message quotes the verifier's logged reason when it gave one), or cannot be
            judged now (the verifier raised ``ServerBusy``).
    """
    token = (os.environ if environ is None else environ).get(MCP_TOKEN_ENV, "").strip()
    name = verifier_name(verifier)
    if not token:
        raise ConfigurationError(
            f"auth= is configured ({name}) and the stdio transport takes the caller's token from the environment: "
            f'set {MCP_TOKEN_ENV} (in a desktop client\'s entry, its "env"); the server does not serve without it'
        )
    if len(token) > MAX_TOKEN_LENGTH:
        raise ConfigurationError(
            f"the token in {MCP_TOKEN_ENV} has {len(token)} characters; at most {MAX_TOKEN_LENGTH} are accepted"
        )
    with _reasons() as reasons:
        try:
            principal = await authenticate(verifier, f"Bearer {token}")
        except ServerBusy as exc:
            raise ConfigurationError(
                f"the token in {MCP_TOKEN_ENV} cannot be checked now ({name}: {exc}); start the server again later"
            ) from None
    if principal is None:
        why = f": {reasons[-1]}" if reasons else ""
        raise ConfigurationError(f"the token in {MCP_TOKEN_ENV} was refused by the server's verifier ({name}){why}")
    log.info(
        "stdio: every request is %r's (the token in %s; scopes: %s)",
        principal.subject,
        MCP_TOKEN_ENV,
        " ".join(sorted(principal.scopes)) or "none",
    )
    return principal


class TokenExpiry:
    """When the stdio caller's token stops being honoured, and the answer to each request after it.

    Attributes:
        at: the instant, in seconds since the epoch (``time.time()``'s clock): the token's ``exp``
            plus the verifier's leeway.
        leeway: the seconds of that leeway (0 when the verifier has none).
    """

    def __init__(self, at: float, leeway: float = 0.0) -> None:
        self.at = at
        self.leeway = leeway
        self._said = False

    def refusal(self, request_id: object) -> dict[str, Any]:
        """The error response to request ``request_id`` read after :attr:`at` (-32600, as HTTP's 401
        body); the first one also says on stderr that the token expired and what to do."""
        if not self._said:
            self._said = True
            log.warning(
                "stdio: %s: every request from now on is refused (-32600 Unauthorized); %s", self.expired(), RESTART
            )
        return error_response(Unauthorized(f"Unauthorized: {INVALID_TOKEN}"), request_id)

    def refuse_requests(self, items: list[Any]) -> tuple[list[dict[str, Any]], list[Any]]:
        """A batch read after :attr:`at`: the refusals of its requests, and the members left to serve
        (notifications, answers to the server's requests, and members serving will find invalid)."""
        refusals: list[dict[str, Any]] = []
        rest: list[Any] = []
        for item in items:
            try:
                message = jsonrpc.classify(item)
            except ProtocolError:
                rest.append(item)
                continue
            if message.kind == jsonrpc.REQUEST:
                refusals.append(self.refusal(message.id))
            else:
                rest.append(item)
        return refusals, rest

    def expired(self) -> str:
        """What happened, in a few words (never the token)."""
        grace = f" and the verifier's leeway of {self.leeway:g} s" if self.leeway else ""
        return f"the token in {MCP_TOKEN_ENV} expired at {_utc(self.at)} (its exp claim{grace})"


def token_expiry(principal: Principal, verifier: TokenVerifier, now: float | None = None) -> TokenExpiry | None:
    """When the token that granted ``principal`` stops being honoured over stdio, or None (never).

    The instant is the principal's ``exp`` claim (seconds since the epoch, RFC 7519 § 4.1.4: a
    ``JWTVerifier``'s principal always has one; your own verifier's when its ``claims`` carry one)
    plus the verifier's ``leeway`` attribute when it has one (``JWTVerifier(leeway=30.0)``): the
    instant from which HTTP refuses the same token. A claim that is not a finite number is no
    expiry, nor is a negative or non-numeric leeway any leeway.

    Args:
        principal: what the verifier granted the token in ``$MCP_TOKEN``.
        verifier: the server's verifier.
        now: the current time (default ``time.time()``).
    Raises:
        ConfigurationError: the instant has already passed (a verifier of your own granted an
            expired token; a JWT checked in the last moment of its leeway): the server does not
            start, as for a refused token.
    """
    exp = principal.claims.get("exp")
    if not _finite(exp):
        return None
    leeway = getattr(verifier, "leeway", 0.0)
    leeway = float(leeway) if _finite(leeway) and leeway > 0 else 0.0
    expiry = TokenExpiry(float(exp) + leeway, leeway)
    if (time.time() if now is None else now) >= expiry.at:
        raise ConfigurationError(f"{expiry.expired()}: {RESTART}")
    return expiry


def _finite(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _utc(at: float) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))
    except (OverflowError, OSError, ValueError):  # beyond what the platform's calendar holds
        return f"{at:g} s after the epoch"


@contextmanager
def _reasons() -> Iterator[list[str]]:
    """The messages the ``nanohubmcp.auth`` logger records meanwhile (INFO and up: a JWT's failed check,
    a verifier's mistake); they never hold the token (that logger's rule). Records at levels the logger
    would not have shown are kept here only, not passed on, and so are a JWT's refusals (the error quotes them)."""
    seen: list[str] = []
    shown_from = log.getEffectiveLevel()

    def keep(record: logging.LogRecord) -> bool:
        seen.append(" ".join(record.getMessage().split()))
        # a JWT's refusal (an audience's is a WARNING) is quoted in the one error line: not said twice
        return record.levelno >= shown_from and not record.getMessage().startswith("refused a JWT:")

    level = log.level
    if shown_from > logging.INFO:
        log.setLevel(logging.INFO)  # the reason is wanted even where INFO is not shown
    log.addFilter(keep)
    try:
        yield seen
    finally:
        log.removeFilter(keep)
        log.setLevel(level)
