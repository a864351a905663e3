"""Origin and Host checks against DNS rebinding.

Browsers send ``Origin``; a page on a foreign site must not drive a local server. Allowed by
default: loopback origins (``localhost``, ``127.0.0.0/8``, ``[::1]``, any port) and the
detected public origin (the weber proxy host). Requests without ``Origin`` (curl, SDK clients)
are allowed. A present but foreign ``Origin`` gets 403. An origin is parsed strictly
(``scheme://host[:port]`` and nothing else), so ``http://localhost:8000.evil.example`` is
the foreign host it is, not localhost.

A page that rebinds its own name to 127.0.0.1 sends a same-origin request (no ``Origin``) but
``Host: evil.example:PORT``. A server bound to loopback therefore serves only the Hosts it can
be reached by: loopback names, the public URL's host and the hosts of listed origins (421
otherwise); a name is one host with or without its final dot (``example.com.`` is ``example.com``). A
server bound to other interfaces is reached by names it cannot know, and does not check ``Host``.

Source: MCP 2025-11-25, Transports § Security Warning (Origin MUST be validated; invalid → 403);
RFC 6454 § 7 (the Origin header); RFC 9110 § 7.2 (Host), § 15.5.20 (421).
"""

from __future__ import annotations

import functools
import ipaddress
import re
from urllib.parse import urlsplit

from .config import TransportConfig

# The two Origin patterns are text that ``re`` compiles (and caches) at their first use, a request with an
# ``Origin`` header (a browser's): ~1.4 M instructions of a start that serves no browser. Every request
# checks ``Host``, so that one is compiled here.
_ORIGIN = r"(?a)(https?)://(\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::(\d{1,5}))?"
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::(\d{1,5}))?", re.ASCII)
_FINAL_DOT = r"(?<=[^/])\.(?=(?::\d*)?$)"
"""The final dot of an origin's host name (``http://example.com.:8000``)."""


@functools.lru_cache(maxsize=64)  # checked on every request; parsing the IP literal was ~1% of a call
def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback IP literals."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def origin_allowed(origin: str | None, config: TransportConfig) -> bool:
    """Decide whether a request with this ``Origin`` header may be served."""
    if origin is None:
        return True
    policy = config.allowed_origins
    if policy == "*":
        return True
    normalized = _origin_key(origin)
    if normalized in {_origin_key(o) for o in config.extra_origins}:
        return True
    if isinstance(policy, (list, tuple, set, frozenset)) and (
            "*" in policy or normalized in {_origin_key(o) for o in policy}):
        return True
    match = re.fullmatch(_ORIGIN, normalized)
    return match is not None and is_loopback_host(match.group(2))


def _origin_key(origin: str) -> str:
    """An origin as compared: lower case, no trailing ``/``, no final dot of its name (``example.com.`` is
    ``example.com``: a fully qualified name is the same host)."""
    return re.sub(_FINAL_DOT, "", origin.rstrip("/").lower())


def host_name(host: str) -> str | None:
    """The name part of a ``Host`` header value (``host[:port]``), lower case, without a final dot (``example.com.``
    is ``example.com``); None when it is not one."""
    match = _HOST.fullmatch(host.strip().lower())
    return (match.group(1).removesuffix(".") or None) if match is not None else None


def is_ip_host(host: str) -> bool:
    """True when a ``Host`` value names an IP address (no name a DNS answer could rebind)."""
    name = host_name(host)
    if name is None:
        return False
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def host_allowed(host: str, config: TransportConfig) -> bool:
    """Decide whether a request with this ``Host`` may be served (see the module text)."""
    if not config.loopback_bound or config.allowed_origins == "*":
        return True
    name = host_name(host)
    if name is None:
        return False
    if is_loopback_host(name):
        return True
    return name in known_hosts(config)


def known_hosts(config: TransportConfig) -> set[str]:
    """Host names of the public URL and of the allowed origins."""
    origins = set(config.extra_origins)
    if isinstance(config.allowed_origins, (list, tuple, set, frozenset)):
        origins.update(config.allowed_origins)
    names = set()
    for origin in origins:
        try:
            name = urlsplit(origin.lower()).hostname
        except ValueError:
            continue
        if name:
            names.add(f"[{name}]" if ":" in name else name.removesuffix("."))
    return names
