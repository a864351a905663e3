"""Origin checks against DNS rebinding.

Browsers send ``Origin``; a page on a foreign site must not drive a local server. Allowed by
default: loopback origins (``localhost``, ``127.0.0.0/8``, ``[::1]``, any port) and the
detected public origin (the weber proxy host). Requests without ``Origin`` (curl, SDK clients)
are allowed. A present but foreign ``Origin`` gets 403.

Source: MCP 2025-11-25, Transports § Security Warning (Origin MUST be validated; invalid → 403).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from .config import TransportConfig


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
    normalized = origin.rstrip("/").lower()
    if normalized in config.extra_origins:
        return True
    if isinstance(policy, (list, tuple, set, frozenset)) and (
            "*" in policy or normalized in {o.rstrip("/").lower() for o in policy}):
        return True
    if origin == "null":
        return False
    parts = urlsplit(normalized)
    return parts.scheme in ("http", "https") and parts.hostname is not None and is_loopback_host(parts.hostname)
