"""The one rule a public URL (``run(public_url=...)``, ``--public-url``, ``$MCP_PUBLIC_URL``,
``%config NanohubMCP.public_url``, ``start_mcp --public-url``) follows, wherever it is given.

A public URL is written into response headers (``WWW-Authenticate``) and into every document the server
serves, and clients build their request URLs from it: a space or a control character anywhere in it (a
line break in a header is a 500 for every 401), a host no client can reach, or a query a base URL cannot
carry are refused here, before anything is served. Each caller names the setting in its own words (the
option, the ``%config`` setting, the ``run()`` argument) in front of the message.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..errors import ConfigurationError
from .url_path import plain_path

__all__ = ["EXAMPLE", "checked_public_url"]

EXAMPLE = "https://tools.example.org/"
"""A public URL as the refusals show one."""

# Patterns as text: ``re`` compiles them at their first use (a server given no public URL never does).
_HOST = r"(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])+|\[[0-9A-Fa-f:.]+\]"
"""A host as written: RFC 3986 § 3.2.2 reg-name (plus a name in another script, an IDN) or an IPv6 literal."""
_PORT = r":[0-9]*$"


def checked_public_url(text: str) -> str:
    """``text`` as the base URL clients are told about: stripped of surrounding white space, ending in ``/``.

    Args:
        text: an absolute http(s) URL: scheme, host, optional port and path (``https://h.example/tools``).

    Returns:
        The URL without surrounding white space and with one trailing ``/``
        (``" https://h.example/tools"`` → ``"https://h.example/tools/"``), a port written with leading zeros
        as its number (``:00080`` → ``:80``).

    Raises:
        ConfigurationError: one line starting with ``repr(text)``, saying what to give instead, when the URL
            holds a space or a control character anywhere (host, port or path: ``'https://h\\n.com/'``), is not
            http(s) with a host and a numeric port, has port 0, carries a user, query or fragment, has a host
            with a character no host name holds (``"``, ``<``, a ``%`` not followed by two hex digits) or an
            empty or hyphen-bounded DNS label (``x..org``, ``-x.org``), or a path with a character to
            percent-encode (a ``%`` not followed by two hex digits too) or a ``.``/``..`` segment (a client
            normalizes it to another path).

    Example:
        >>> checked_public_url("https://tools.example.org/me")
        'https://tools.example.org/me/'
    """
    value = text.strip()
    # urlsplit drops tabs and line breaks before it parses (WHATWG): look at the text itself first
    bad = next((char for char in value if char.isspace() or not char.isprintable()), None)
    if bad is not None:
        raise ConfigurationError(
            f"{text!r} holds {'a space' if bad == ' ' else f'a control character (U+{ord(bad):04X})'}: a URL holds "
            f"none, in its host or its path (percent-encode one in the path, e.g. {EXAMPLE}my%20tool/)")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(f"{text!r} is not an http:// or https:// URL with a host, e.g. {EXAMPLE}")
    if parts.query or parts.fragment or parts.username or parts.password or value.endswith(("?", "#")):
        raise ConfigurationError(f"{text!r}: give the base URL only (scheme, host, optional port and path), without "
                                 "user, query or fragment")
    if parts.port == 0:
        raise ConfigurationError(f"{text!r}: port 0 is no port a client can reach; give one from 1 to 65535, or "
                                 f"none, e.g. {EXAMPLE}")
    host = re.sub(_PORT, "", parts.netloc)
    if not re.fullmatch(_HOST, host):
        raise ConfigurationError(f"{text!r}: the host holds a character no host name holds; give a name or an "
                                 f"address, e.g. {EXAMPLE}")
    if not host.startswith("[") and _bad_label(host):
        raise ConfigurationError(f"{text!r}: the host has an empty name between dots, or one that begins or ends "
                                 f"with '-' (no DNS name does); e.g. {EXAMPLE}")
    if not plain_path(parts.path):
        raise ConfigurationError(f"{text!r}: the path holds a character to percent-encode (a '%' not followed by "
                                 f"two hex digits too) or a '.'/'..' segment; give a path such as {EXAMPLE}my%20tool/")
    if parts.port is not None and parts.netloc.rpartition(":")[2] != str(parts.port):
        # ':00080' is port 80: the browser's Origin says 'http://x.org', which the check must know it by
        value = parts._replace(netloc=f"{host}:{parts.port}").geturl()
    return value.rstrip("/") + "/"


def _bad_label(host: str) -> bool:
    """Whether a DNS label of ``host`` is empty (``x..org``) or begins or ends with ``-`` (``-x.org``): RFC 1123
    § 2.1 (one final dot, ``x.org.``, is a fully qualified name)."""
    labels = host.removesuffix(".").split(".")
    return any(not label or label.startswith("-") or label.endswith("-") for label in labels)

