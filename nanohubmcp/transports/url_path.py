"""Whether a URL path given to the server (a path prefix, a public URL's path) can be served as written.

One rule for every way a value arrives — ``run(path_prefix=...)``, ``--path-prefix``, ``$MCP_PATH_PREFIX``,
``%config NanohubMCP.path_prefix``, the path of a public URL: it holds only characters a URL path holds
as written (RFC 3986 § 3.3: unreserved characters, sub-delimiters, ``:``, ``@``, ``/`` and ``%``-escapes, a ``%``
and two hex digits such as ``%20`` (``%zz`` is none: a client refuses or re-encodes it); a space, a control
character or a non-ASCII letter must be percent-encoded) and no ``.`` or ``..`` segment, escaped or not (a
client removes those before sending: RFC 3986 § 5.2.4), so the URL the server advertises is the one a client
reaches.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["plain_path", "prefix_path"]

_PATH = r"(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*"


def plain_path(path: str) -> bool:
    """Whether ``path`` is served as written (module docstring)."""
    return bool(re.fullmatch(_PATH, path)) and not any(unquote(segment) in (".", "..") for segment in path.split("/"))


def prefix_path(prefix: str) -> bool:
    """Whether ``prefix`` can be a path prefix: :func:`plain_path`, no empty segment inside (``/a//b``: proxies
    merge the slashes) and no ``://`` (a URL given where its path alone was asked for)."""
    return plain_path(prefix) and "//" not in prefix.strip("/") and "://" not in prefix
