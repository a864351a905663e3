"""Authorization at the edge: every request's bearer token is checked here, once.

MCP 2025-06-18 onward, Authorization: the server is an OAuth 2.1 resource server. A request
without a valid ``Authorization: Bearer <token>`` gets 401 with ``WWW-Authenticate: Bearer
resource_metadata="<url>"`` naming the protected resource metadata document (RFC 9728 § 5.1),
served at ``/.well-known/oauth-protected-resource`` under the public URL (and at any path
below it, the path-aware form of RFC 9728 § 3.1). A token lacking required scopes gets 403
``error="insufficient_scope"`` (RFC 6750 § 3.1). CORS preflights and 405s are answered before
the check (browser clients send no credentials on a preflight).

A verifier that cannot judge a token right now raises
:class:`~nanohubmcp.errors.ServerBusy` (``JWTVerifier`` when its issuer's key set cannot be read):
503 with ``Retry-After``, so the client keeps its token and retries (RFC 9110 § 15.6.4).

The 401 (and a 403 for scopes the whole server requires) is answered before the body is
read — the body of a caller without a valid token is never read — so its JSON-RPC error
carries ``"id": null``; a 403 for a tool's own scopes comes once the body was parsed and
carries the request's id.
"""

from __future__ import annotations

import base64
import inspect
import logging
import traceback
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus, unquote, urlsplit

from ..auth.verifiers import MAX_TOKEN_LENGTH, TokenVerifier, principal_class
from ..errors import ConfigurationError, ServerBusy
from .config import TransportConfig

if TYPE_CHECKING:
    from ..server.wire.principal import Principal

log = logging.getLogger("nanohubmcp.auth")

METADATA_PATH = ".well-known/oauth-protected-resource"
"""Where the protected resource metadata lives, relative to the public base URL."""
INVALID_TOKEN = "the bearer token is invalid or expired"
"""Why a token the verifier refused was refused, as the client hears it (401 ``invalid_token``; over
stdio, a request after the token in ``$MCP_TOKEN`` expired): which check failed is the server log's."""


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (scheme case-insensitive), or None."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_LENGTH:
        return None
    return token


def refusal(header: str | None) -> tuple[str, str | None]:
    """Why a request with this ``Authorization`` header was refused, and its RFC 6750 error code.

    No header, or another scheme than Bearer (``Basic ...``), is a request that "lacks any
    authentication information", which gets no error code (RFC 6750 § 3.1); a Bearer token the
    verifier refused gets ``invalid_token``.
    """
    scheme, space, _ = (header or "").strip().partition(" ")
    if not scheme:
        return "send 'Authorization: Bearer <token>'", None
    if scheme.lower() != "bearer":
        # Named only when it is one (a word before the credentials), never a bare token echoed back.
        named = space and scheme.isascii() and scheme.isalnum() and len(scheme) <= 20
        wrong = f"uses the {scheme} scheme" if named else "does not start with 'Bearer '"
        return f"the Authorization header {wrong}: send 'Authorization: Bearer <token>'", None
    return INVALID_TOKEN, "invalid_token"


def resource_url(base: str) -> str:
    """This server's resource identifier: the public base URL without its trailing slash
    (MCP 2025-06-18, Authorization § Canonical Server URI)."""
    return base.rstrip("/")


def metadata_url(base: str) -> str:
    """The URL of the protected resource metadata document under the public base."""
    return f"{base}{METADATA_PATH}"


SERVED_RESOURCES = ("", "/mcp", "/sse")
"""The resources this server's metadata names, as paths under its public base: the root and its two streaming
endpoints (the routes a token opens a session on)."""


def served_resource(suffix: str, base: str, prefix: str = "") -> str | None:
    """Which of :data:`SERVED_RESOURCES` the path-aware metadata's ``suffix`` names, None for any other path.

    ``suffix`` is the path after the well-known name, decoded (RFC 9728 § 3.1 puts the resource's own path there,
    ``/.well-known/oauth-protected-resource/weber/12/abc/3/mcp``; one under the prefix may also name it
    relative to the base, ``<prefix>/.well-known/oauth-protected-resource/mcp``); one trailing slash is the same
    resource. ``base`` is the public base URL, ``prefix`` the configured path prefix (its path when a client
    reaches the server directly). Any other path (``/elsewhere``, a control character, 20,000 characters) names
    no resource this server protects: the caller answers 404 rather than echo it.
    """
    if suffix.endswith("/"):
        suffix = suffix[:-1]
    roots = {"", unquote(urlsplit(base).path.rstrip("/")), unquote(prefix.rstrip("/"))}
    for resource in SERVED_RESOURCES:
        if any(suffix == root + resource for root in roots):
            return resource
    return None


def metadata_document(verifier: Any, base: str, resource_path: str = "", name: str | None = None) -> dict[str, Any]:
    """The RFC 9728 § 2 document: ``resource`` (required), where tokens come from, scopes.

    ``resource_path`` is one of :data:`SERVED_RESOURCES` (:func:`served_resource`): the ``resource`` is the public
    base with that path, the URL the client asked about, as RFC 9728 § 3.3 requires it to match.
    """
    resource = resource_url(base) + resource_path
    document: dict[str, Any] = {
        "resource": resource,
        **({"resource_name": name} if name else {}),
        "bearer_methods_supported": ["header"],
    }
    servers = getattr(verifier, "authorization_servers", None)
    if servers:
        document["authorization_servers"] = list(servers)
    scopes = getattr(verifier, "scopes_supported", None) or getattr(verifier, "required_scopes", None)
    if scopes:
        document["scopes_supported"] = sorted(scopes)
    return document


def challenge(base: str, *, error: str | None = None, scopes: Any = None, description: str | None = None) -> str:
    """A ``WWW-Authenticate`` value (RFC 6750 § 3, with RFC 9728 § 5.1's ``resource_metadata``)."""
    parts = [f'resource_metadata="{metadata_url(base)}"']
    if error:
        parts.append(f'error="{error}"')
    if description:
        parts.append('error_description="{}"'.format(description.replace('"', "'")))
    if scopes:
        parts.append('scope="{}"'.format(" ".join(scopes)))
    return "Bearer " + ", ".join(parts)


async def authenticate(verifier: TokenVerifier, header: str | None) -> Principal | None:
    """The principal ``verifier`` grants the ``Authorization`` header, or None (a refusal: 401).

    A verifier that raises, or returns neither a ``Principal`` nor None/False, refuses too: the
    server's log (``nanohubmcp.auth``, ERROR) names the verifier's mistake, never the token.

    Raises:
        ServerBusy: the verifier cannot judge the token now (503 with ``Retry-After``).
    """
    token = bearer_token(header)
    if token is None:
        too_long(header)
        return None
    try:
        result = verifier.verify(token)
        if inspect.isawaitable(result):
            result = await result
    except ServerBusy:
        raise
    except Exception as exc:
        verifier_failed(verifier, exc, token)
        return None
    return checked(verifier, result)


def too_long(header: str | None) -> None:
    """Log (INFO) a bearer token refused unread for its length: its length and the limit, never the token."""
    scheme, _, token = (header or "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and len(token) > MAX_TOKEN_LENGTH:
        log.info("refused a bearer token of %d characters unread: tokens longer than %d are refused",
                 len(token), MAX_TOKEN_LENGTH)


async def awaited(verifier: TokenVerifier, pending: Any, token: str | None) -> Principal | None:
    """:func:`authenticate`'s answer for an asynchronous verifier's pending ``verify`` (begun
    before the body was read).

    Raises:
        ServerBusy: the verifier cannot judge the token now (503 with ``Retry-After``).
    """
    try:
        result = await pending
    except ServerBusy:
        raise
    except Exception as exc:
        verifier_failed(verifier, exc, token)
        return None
    return checked(verifier, result)


def checked(verifier: TokenVerifier, result: object) -> Principal | None:
    """``result`` when a Principal; None for None/False, and for anything else (logged)."""
    if isinstance(result, principal_class()):
        return result
    if result is not None and result is not False:
        log.error("the token verifier %s returned %s; return a Principal (or None to refuse): request refused (401)",
                  verifier_name(verifier), type(result).__name__)
    return None


SHORT_TOKEN = 12
"""A token shorter than this never has a verifier's exception text logged: too many messages
hold such short strings by chance to tell whether one holds the token."""

TOKEN_PIECE = 8
"""A message holding any run of this many characters of the token (or of its encoded forms) is
not logged; a verifier's exception is logged by its type alone then."""

WITHHELD = "(its message is not logged: it may hold the token)"


def verifier_failed(verifier: TokenVerifier, exc: Exception, token: str | None) -> None:
    """Log a verifier's exception: its type, where it was raised and its message (on one line, at
    most 300 characters), the message only when it cannot hold the token (:func:`may_hold`)."""
    shown = " ".join(str(exc).split())[:300]
    if token and may_hold(shown, token):
        shown = WITHHELD
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    log.error("the token verifier %s raised %s: %s%s: request refused (401)",
              verifier_name(verifier), type(exc).__name__, shown, where)


def may_hold(message: str, token: str) -> bool:
    """Whether ``message`` may hold ``token`` in some form: True for every token shorter than
    :data:`SHORT_TOKEN`, and when :data:`TOKEN_PIECE` characters in a row of the token, of it
    percent-encoded (``quote``, ``quote_plus``), base64-encoded (standard or URL-safe, at any of the
    three alignments, as inside ``user:token``), hex-encoded (``bytes.hex()``, either case) or escaped
    as ``repr`` does (of the text or of its UTF-8 bytes) appear in ``message`` (ignoring case, as
    percent-encoding's hex does)."""
    if len(token) < SHORT_TOKEN:
        return True
    raw = token.encode("utf-8", "surrogatepass")
    forms = [token, quote(token, safe=""), quote(token), quote_plus(token), repr(token)[1:-1], raw.hex(),
             repr(raw)[2:-1]]
    for pad in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.append(encode(b"\0" * pad + raw).decode()[4 if pad else 0:])
    pieces = {piece for form in forms for piece in _pieces(form.casefold())}
    return any(piece in pieces for piece in _pieces(message.casefold()))


def _pieces(text: str) -> Iterator[str]:
    return (text[i:i + TOKEN_PIECE] for i in range(len(text) - TOKEN_PIECE + 1))


def verifier_name(verifier: object) -> str:
    """What the log calls ``verifier``: its class, or the function given as ``auth=``."""
    check = getattr(verifier, "check", None)  # a plain function given as auth= (CallableVerifier)
    named = check if callable(check) else verifier
    return getattr(named, "__qualname__", None) or type(named).__qualname__


def bind_resource(config: TransportConfig, host: str | None = None, port: int | None = None) -> None:
    """Tell a verifier that checks audiences (a ``resource`` attribute) this server's resource
    URL: from ``public_url``, else the bound loopback or named address.

    Raises:
        ConfigurationError: the verifier needs the URL but the server binds every interface
            with no ``public_url`` (the URL clients use cannot be known).
    """
    verifier = config.auth
    if verifier is None or not hasattr(verifier, "resource") or getattr(verifier, "audience", None):
        return
    if config.public_url:
        verifier.resource = resource_url(config.public_url)
    elif host is None:
        return  # make_app() for the user's own HTTPServer: only public_url or audience= can say
    elif host in ("", "0.0.0.0", "::"):
        raise ConfigurationError(
            "the JWT verifier checks the token audience against this server's URL, which is unknown when "
            "binding every interface: pass public_url=... or JWTVerifier(audience=...)"
        )
    elif port is not None:
        shown = f"[{host}]" if ":" in host else host
        verifier.resource = f"http://{shown}:{port}{config.path_prefix}"
