"""What a transport needs to know about where and how it serves.

``path_prefix`` is a path the server itself serves under (a proxy that does not strip it);
``public_url`` is the URL clients are told about (a proxy that strips its prefix, like nanoHUB's
weber). ``allowed_origins`` None admits loopback origins plus the public URL's origin (MCP
2025-11-25, Transports § Security Warning: validate ``Origin``). Bodies over the limit get 413; responses
clients leave unread are bounded by ``max_unsent_bytes`` (:mod:`.unsent`).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..auth.verifiers import TokenVerifier
from ..errors import ConfigurationError
from ..protocol.message_values import shown_value
from .budget import principal_share
from .limits import DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_UNSENT_BYTES, check_limits
from .unsent import UnsentBudget
from .unsent import principal_share as unsent_principal_share
from .url_path import normal_path, prefix_path

KEEPALIVE_SECONDS = 15.0
"""Interval of SSE comment lines that keep idle streams open through proxies."""


def normalize_prefix(prefix: str | None) -> str:
    """``"weber/1/x/"`` → ``"/weber/1/x"``; an escaped unreserved character as itself (``"/%41pp"`` →
    ``"/App"``, :func:`~.url_path.normal_path`); ``""``, ``"/"`` and None → ``""``."""
    if not prefix:
        return ""
    prefix = "/" + normal_path(prefix.strip()).strip("/")
    return "" if prefix == "/" else prefix


_FIELDS = (
    "path_prefix", "public_url", "allowed_origins", "max_request_bytes", "max_buffered_bytes", "keepalive_seconds",
    "extra_origins", "auth", "loopback_bound", "proxy_headers", "max_unsent_bytes", "max_buffered_bytes_per_principal",
    "max_unsent_bytes_per_principal",
)
_LIMITS = ("max_request_bytes", "max_buffered_bytes", "max_buffered_bytes_per_principal", "max_unsent_bytes",
           "max_unsent_bytes_per_principal")


class TransportConfig:
    """Serving options shared by every handler.

    A plain class rather than a dataclass (the same arguments, ``repr`` and ``==``; ``unsent`` is
    made from ``max_unsent_bytes`` and left out of both): serving imports it before the first answer,
    and a dataclass compiles its methods at import (~3 M instructions of every server's cold start).

    Attributes:
        path_prefix: path the server serves under (``""`` or ``"/weber/..."``), no trailing slash, an escaped
            unreserved character written as itself (``/%41pp`` is ``/App``); served in every spelling of it.
        public_url: the base URL the server advertises (weber URL behind a proxy), with a
            trailing slash; None = derived from the request's own host.
        allowed_origins: ``None`` (loopback origins plus the public URL's origin), a list of
            origins, or ``"*"`` (any).
        max_request_bytes: body limit (413 above it).
        max_buffered_bytes: the most bytes of request bodies received at once over every
            connection (a body beyond it: 503 with ``Retry-After``); at least ``max_request_bytes``.
        max_buffered_bytes_per_principal: the most of them one authenticated principal's bodies take
            (503 beyond it, for that principal only); at least ``max_request_bytes``, and one at or above
            ``max_buffered_bytes`` turns the share off. None (the default): an eighth of
            ``max_buffered_bytes``, at least ``max_request_bytes`` (:attr:`buffered_share`).
        keepalive_seconds: SSE keep-alive comment interval.
        auth: the token verifier every route checks (``verify(token) -> Principal | None``),
            or None for no authorization.
        max_unsent_bytes: most response bytes held in all for clients that have not read them;
            connections are closed, oldest first, beyond it (:mod:`.unsent`).
        max_unsent_bytes_per_principal: the most of them one authenticated principal holds before its
            connections are the first closed beyond ``max_unsent_bytes``; at least 1 MiB, and one at or
            above ``max_unsent_bytes`` turns the share off. None (the default): an eighth of
            ``max_unsent_bytes``, at least 1 MiB.
        loopback_bound: the server listens on a loopback address only, so it checks ``Host``
            against DNS rebinding (set by the runner; False for ``make_app()``).
        proxy_headers: the runner's ``HTTPServer`` trusts ``X-Forwarded-Proto`` / ``X-Scheme`` and
            ``X-Real-Ip`` / ``X-Forwarded-For`` (Tornado's ``xheaders``): for a server behind a reverse
            proxy that sets them.
    """

    def __init__(
        self,
        path_prefix: str = "",
        public_url: str | None = None,
        allowed_origins: object = None,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
        max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
        keepalive_seconds: float = KEEPALIVE_SECONDS,
        extra_origins: set[str] | None = None,
        auth: TokenVerifier | None = None,
        loopback_bound: bool = False,
        proxy_headers: bool = False,
        max_unsent_bytes: int = DEFAULT_MAX_UNSENT_BYTES,
        max_buffered_bytes_per_principal: int | None = None,
        max_unsent_bytes_per_principal: int | None = None,
    ) -> None:
        self.path_prefix = path_prefix
        self.public_url = public_url
        self.allowed_origins = allowed_origins
        self.max_request_bytes = max_request_bytes
        self.max_buffered_bytes = max_buffered_bytes
        self.keepalive_seconds = keepalive_seconds
        self.extra_origins: set[str] = set() if extra_origins is None else extra_origins
        self.auth = auth
        self.loopback_bound = loopback_bound
        self.proxy_headers = proxy_headers
        self.max_unsent_bytes = max_unsent_bytes
        self.max_buffered_bytes_per_principal = max_buffered_bytes_per_principal
        self.max_unsent_bytes_per_principal = max_unsent_bytes_per_principal
        self._check()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"TransportConfig({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable and compared by value: unhashable

    def _check(self) -> None:
        if self.path_prefix and not (isinstance(self.path_prefix, str) and prefix_path(self.path_prefix.strip())):
            raise ConfigurationError(
                f"path_prefix {shown_value(self.path_prefix, 240)} is not a URL path: give the path alone, e.g. "
                "/tools (no scheme, host, query, spaces, non-ASCII or control characters, '.'/'..' segments or empty "
                "ones ('//'); percent-encode such a character, e.g. /my%20tools)")
        self.path_prefix = normalize_prefix(self.path_prefix)
        if self.public_url:
            from .public_url import checked_public_url  # (given a public URL or origins: not at every start)

            try:
                self.public_url = checked_public_url(self.public_url)
            except ConfigurationError as exc:
                raise ConfigurationError(f"public_url {exc}") from None
            parts = urlsplit(self.public_url)
            netloc = parts.netloc.lower()
            default_port = {"https": ":443", "http": ":80"}[parts.scheme]
            if netloc.endswith(default_port):
                netloc = netloc[: -len(default_port)]  # browsers send the origin without it
            self.extra_origins.add(f"{parts.scheme}://{netloc}")
        for name, value in check_limits({name: getattr(self, name) for name in _LIMITS}).items():
            setattr(self, name, value)  # an int: 1.5e6 made 1500000
        share = self.max_buffered_bytes_per_principal
        if share is None:
            share = principal_share(self.max_buffered_bytes, self.max_request_bytes)
        self.buffered_share = min(share, self.max_buffered_bytes)  # a share above the whole is the whole
        """The bytes of bodies being received one principal may hold (:mod:`.budget`)."""
        unsent_share = self.max_unsent_bytes_per_principal
        if unsent_share is None:
            unsent_share = unsent_principal_share(self.max_unsent_bytes)
        self.unsent = UnsentBudget(self.max_unsent_bytes, min(unsent_share, self.max_unsent_bytes))
        origins = self.allowed_origins
        if origins not in (None, "*", "loopback") and not (
            isinstance(origins, (list, tuple, set, frozenset)) and all(isinstance(o, str) for o in origins)
        ):
            raise ConfigurationError('allowed_origins must be None, "*", or a list of origins like '
                                     '["https://example.org"]')
        if isinstance(origins, (list, tuple, set, frozenset)):
            from .public_url import checked_origin

            try:  # as browsers send them (xn--, lower case, no default port): one never matching was a 403
                self.allowed_origins = ["*" if origin.strip() == "*" else checked_origin(origin) for origin in origins]
            except ConfigurationError as exc:
                raise ConfigurationError(f"allowed_origins {exc}") from None

    def public_path(self) -> str:
        """The path part of the public base, no trailing slash (``""`` at the root)."""
        if self.public_url:
            return urlsplit(self.public_url).path.rstrip("/")
        return self.path_prefix
