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
unreadable: :class:`~nanohubmcp.errors.ServerBusy`) stops it too, saying so. The token is checked once:
a JWT that expires while the process serves is not checked again (the desktop client starts a new
process with a fresh token).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from ..auth.verifiers import MAX_TOKEN_LENGTH, MCP_TOKEN_ENV, TokenVerifier
from ..errors import ConfigurationError, ServerBusy
from ..server.wire.principal import Principal
from .auth import authenticate, verifier_name

__all__ = ["environment_principal"]

log = logging.getLogger("nanohubmcp.auth")


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


@contextmanager
def _reasons() -> Iterator[list[str]]:
    """The messages the ``nanohubmcp.auth`` logger records meanwhile (INFO and up: a JWT's failed check,
    a verifier's mistake); they never hold the token (that logger's rule). Records at levels the logger
    would not have shown are kept here only, not passed on."""
    seen: list[str] = []
    shown_from = log.getEffectiveLevel()

    def keep(record: logging.LogRecord) -> bool:
        seen.append(" ".join(record.getMessage().split()))
        return record.levelno >= shown_from

    level = log.level
    if shown_from > logging.INFO:
        log.setLevel(logging.INFO)  # the reason is wanted even where INFO is not shown
    log.addFilter(keep)
    try:
        yield seen
    finally:
        log.removeFilter(keep)
        log.setLevel(level)
