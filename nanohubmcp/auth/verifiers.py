"""Token verifiers: the static bearer tokens of the simple case, and custom hooks.

A verifier is any object with ``verify(token) -> Principal | None`` (sync, or ``async def``);
None means "not a valid token" (401). Attributes the transports read when present:

- ``required_scopes``: scopes every request needs (a token without them gets 403);
- ``authorization_servers``: issuer URLs advertised in the protected resource metadata
  (RFC 9728 § 2), so an OAuth client knows where to get a token;
- ``scopes_supported``: scopes advertised in that document;
- ``leeway``: seconds a token stays honoured past the ``exp`` claim of its principal's ``claims``
  over stdio, where the token is checked once, at start (``JWTVerifier``'s clock-skew leeway).
"""

from __future__ import annotations

import functools
import hmac
import inspect
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..errors import ConfigurationError
from ..server.wire.scopes import parse_scopes

if TYPE_CHECKING:
    from ..server.wire.principal import Principal

MCP_TOKEN_ENV = "MCP_TOKEN"
"""Environment variable holding the static bearer token when ``token=`` is not given."""
MAX_TOKEN_LENGTH = 16 * 1024
"""Longest ``Authorization`` token considered (longer ones are refused unread)."""


@functools.cache
def principal_class() -> type[Principal]:
    """:class:`~nanohubmcp.server.wire.principal.Principal`, imported at its first use (a verifier made, a
    verdict checked): a server without authorization never imports it. Cached, so the transports' check of
    every verdict costs a call, not an import."""
    from ..server.wire.principal import Principal

    return Principal


@runtime_checkable
class TokenVerifier(Protocol):
    """What ``MCPServer(auth=...)`` takes: ``verify(token)`` returns the principal or None."""

    def verify(self, token: str) -> Principal | Awaitable[Principal | None] | None:
        """Who sends ``token``: the :class:`Principal` it grants, or None to refuse it.

        Called with the bearer token of an ``Authorization: Bearer <token>`` header (scheme and
        surrounding whitespace removed, at most :data:`MAX_TOKEN_LENGTH` characters; a longer one is
        refused unread), for every HTTP request with authorization configured; over stdio once, with
        ``$MCP_TOKEN``, before serving. It may be ``async def`` (awaited before the request's body is
        read) and is called on the server's event loop, so a slow check belongs in a coroutine.

        Args:
            token: the bearer token, a non-empty string.
        Returns:
            The caller (``subject``, ``scopes`` checked by per-tool ``scopes=``, ``claims``), or None:
            refused, HTTP 401 ``error="invalid_token"`` (RFC 6750 § 3.1).
        Raises:
            ServerBusy: the token cannot be judged now (e.g. the issuer's keys cannot be read): HTTP
                503 with ``Retry-After`` (``retry_after`` seconds), so the client keeps its token.
                Any other exception refuses the token (401) and is logged (logger
                ``nanohubmcp.auth``, ERROR), never the token.

        Source: MCP 2025-11-25, Basic § Authorization (the server as an OAuth 2.1 resource server).
        """
        ...


_B64TOKEN = r"[!-~]"  # (compiled by ``re`` at its first use: a server without a token never does)
"""What a bearer token may be: visible ASCII, no white space. RFC 6750 § 2.1's ``b64token`` (letters,
digits, ``- . _ ~ + /``, ``=`` at its end) is stricter, but clients send any visible ASCII after
``Bearer `` and tokens such as ``my$ecret!`` served before: they stay allowed."""
TOKEN_CHARACTERS = "visible ASCII characters (letters, digits, punctuation; no spaces)"
"""The characters a token may hold, as the refusals say them."""


ENV_SOURCE = f"the token in the {MCP_TOKEN_ENV} environment variable"
"""What a refusal calls a token read from ``$MCP_TOKEN`` (see :func:`checked_token`)."""
_NEW_TOKEN = 'choose another token, e.g. the output of python -c "import secrets; print(secrets.token_urlsafe(32))"'


def checked_token(token: str, source: str = "the bearer token") -> str:
    """``token`` as a server requires clients to send it: without surrounding white space (a token read
    from a file often ends in a line break, CRLF on Windows, that no client can send), and made of the
    characters an ``Authorization: Bearer`` header carries: visible ASCII, no white space (RFC 6750 § 2.1).

    Args:
        token: the token.
        source: what the refusal calls the token, naming where it came from so that the user knows
            what to fix: ``"the token in --token-file ~/.mcp-token"``, :data:`ENV_SOURCE`, ...

    Raises:
        ConfigurationError: a blank token; one with a character outside :data:`TOKEN_CHARACTERS` (a
            control character, a space, ``ö``, ``€``): an HTTP client cannot send a non-ASCII one at all
            (httpx refuses, curl sends bytes no server decodes as the token), so the server would answer
            every request 401. The message starts with ``source`` and names the first such character and
            its position (counted from 1, after the surrounding white space), never the token.
    """
    token = token.strip()
    if not token:
        raise ConfigurationError(f"{source} is blank (only spaces or line breaks): give a token of visible characters")
    wrong = [i for i, ch in enumerate(token) if not re.fullmatch(_B64TOKEN, ch)]
    if wrong:
        first = wrong[0]
        more = "" if len(wrong) == 1 else f" (and {len(wrong) - 1} more such character{'s' * (len(wrong) > 2)})"
        raise ConfigurationError(
            f"{source} contains {_named(token[first])} at position {first + 1}{more}; a bearer token may hold only "
            f"{TOKEN_CHARACTERS}, what a client sends in 'Authorization: Bearer <token>' (RFC 6750 § 2.1): "
            f"{_NEW_TOKEN}"
        )
    return token


def _named(ch: str) -> str:
    """A character a token may not hold, as a refusal says it (an invisible one by its code point)."""
    if ch == " ":
        return "a space"
    if ch == "\t":
        return "a tab"
    if ch in "\r\n":
        return "a line break"
    code = f"U+{ord(ch):04X}"
    if ch.isascii():
        return f"a control character ({code})"
    if not ch.isprintable():
        return f"an invisible character ({code}, not ASCII)"
    return f"{ch!r} ({code}, not ASCII: no HTTP client can send it)"


class StaticTokenVerifier:
    """Accepts fixed bearer tokens, compared in constant time.

    Args:
        tokens: one token, a list of tokens, or a mapping of token to subject name (the
            principal's ``subject``; a plain token's subject is ``"token"``).
        scopes: scopes granted to every accepted token (for tools that require scopes).

    Raises:
        ConfigurationError: no token, or an empty / non-string one; one that no client can send
            (:func:`checked_token`).
    """

    def __init__(
        self, tokens: str | Iterable[str] | Mapping[str, str], *, scopes: str | Iterable[str] | None = None
    ) -> None:
        if isinstance(tokens, str):
            tokens = {tokens: "token"}
        elif not isinstance(tokens, Mapping):
            tokens = dict.fromkeys(tokens, "token")
        if not tokens or not all(isinstance(t, str) and t and isinstance(s, str) and s for t, s in tokens.items()):
            raise ConfigurationError("StaticTokenVerifier needs at least one non-empty token string")
        tokens = {checked_token(t): s for t, s in tokens.items()}
        self.scopes = frozenset(parse_scopes(scopes))
        self.token: str | None = next(iter(tokens)) if len(tokens) == 1 else None
        """The token when there is exactly one (what the banner and notebook snippets show)."""
        principal = principal_class()
        self._tokens = [(t.encode(), principal(s, self.scopes)) for t, s in tokens.items()]

    def verify(self, token: str) -> Principal | None:
        """The principal of ``token``, or None. Every configured token is compared (no early exit)."""
        given = token.encode()
        found = None
        for known, principal in self._tokens:
            if hmac.compare_digest(given, known):
                found = principal
        return found

    def __repr__(self) -> str:
        return f"StaticTokenVerifier({len(self._tokens)} token(s))"  # never the tokens themselves


class CallableVerifier:
    """A custom hook as a verifier: ``check(token)`` (sync or async) returns a ``Principal``,
    a subject string, True (subject ``"user"``), or None / False to refuse."""

    def __init__(self, check: Callable[[str], Any]) -> None:
        self.check = check

    def verify(self, token: str) -> Any:
        result = self.check(token)
        if inspect.isawaitable(result):
            return _convert_later(result)
        return _convert(result)


async def _convert_later(result: Awaitable[Any]) -> Principal | None:
    return _convert(await result)


def _convert(value: object) -> Principal | None:
    if value is None or value is False:
        return None
    if value is True:
        return principal_class()("user")
    if isinstance(value, principal_class()):
        return value
    if isinstance(value, str):
        return principal_class()(value)
    raise TypeError(f"a token check returned {type(value).__name__}; return a Principal, a subject string or None")


def token_required_message(why: str = "") -> str:
    """What a server that serves only with a bearer token (``MCPServer.require_token``, an exported
    notebook's script) says when started with none: how to give one. ``why``: the reason, said after
    the first clause (``"as the notebook's server did"``)."""
    reason = f", {why}" if why else ""
    return (f"this server requires a bearer token{reason}: set {MCP_TOKEN_ENV} to a token of your choice (its "
            "clients send it), or pass --token-file PATH (a file only you can read)")


def resolve(auth: object = None, token: str | None = None) -> Any:
    """The verifier for ``MCPServer(auth=...)`` / ``run(token=...)``, or None (no authorization).

    ``token`` wins over ``auth``; ``token=""`` turns authorization off; with neither, the
    ``MCP_TOKEN`` environment variable (when set and not empty) is the static token.

    Raises:
        ConfigurationError: ``auth`` is neither a verifier nor a callable, or ``token`` is not a string;
            a static token no client can send (:func:`checked_token`, naming ``token=``, ``auth=`` or
            ``$MCP_TOKEN``).
    """
    if token is not None:
        if not isinstance(token, str):
            raise ConfigurationError(f"token must be a string, got {type(token).__name__}")
        return StaticTokenVerifier(checked_token(token, "the token given as token=")) if token else None
    if auth is None:
        env = os.environ.get(MCP_TOKEN_ENV, "")
        return StaticTokenVerifier(checked_token(env, ENV_SOURCE)) if env else None
    if isinstance(auth, str):
        return StaticTokenVerifier(checked_token(auth, "the token given as auth="))
    if callable(getattr(auth, "verify", None)):
        return auth
    if callable(auth):
        return CallableVerifier(auth)
    raise ConfigurationError(
        "auth must be a verifier (an object with verify(token)), a function of the token, or a token string; "
        f"got {type(auth).__name__}"
    )
