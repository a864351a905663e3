"""Whether a URL path given to the server (a path prefix, a public URL's path) can be served as written.

One rule for every way a value arrives — ``run(path_prefix=...)``, ``--path-prefix``, ``$MCP_PATH_PREFIX``,
``%config NanohubMCP.path_prefix``, the path of a public URL: it holds only characters a URL path holds
as written (RFC 3986 § 3.3: unreserved characters, sub-delimiters, ``:``, ``@``, ``/`` and ``%``-escapes, a ``%``
and two hex digits such as ``%20`` (``%zz`` is none: a client refuses or re-encodes it); a space, a control
character or a non-ASCII letter must be percent-encoded) and no ``.`` or ``..`` segment, escaped or not (a
client removes those before sending: RFC 3986 § 5.2.4), so the URL the server advertises is the one a client
reaches.

A path prefix is also written one way (:func:`normal_path`: RFC 3986 § 6.2.2's percent-encoding normalization,
``/%41pp`` is ``/App``) and served in every spelling of it (:func:`spellings`): a proxy that forwards the path as
the client wrote it (nginx's ``proxy_pass`` without a URI, after matching its ``location`` on the decoded path)
hands the server ``/%41pp/mcp`` or ``/App/mcp``, the same URL to RFC 3986.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["normal_path", "plain_path", "prefix_path", "spellings"]

_PATH = r"(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*"
_ESCAPE = r"%([0-9A-Fa-f]{2})"
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
"""RFC 3986 § 2.3: the characters whose escape (``%41``) is the same URL as the character (``A``)."""


def plain_path(path: str) -> bool:
    """Whether ``path`` is served as written (module docstring)."""
    return bool(re.fullmatch(_PATH, path)) and not any(unquote(segment) in (".", "..") for segment in path.split("/"))


def prefix_path(prefix: str) -> bool:
    """Whether ``prefix`` can be a path prefix: :func:`plain_path` with no empty segment (``//`` anywhere:
    ``/a//b``, ``//``; proxies merge the slashes, and ``https://h/x`` is a URL given where its path alone was
    asked for)."""
    return plain_path(prefix) and "//" not in prefix


def normal_path(path: str) -> str:
    """``path`` as RFC 3986 § 6.2.2.1-2 normalizes it: an escaped unreserved character as the character, any
    other escape's hex digits upper-case (``/%41pp/a%2fb`` → ``/App/a%2Fb``). Of a :func:`plain_path`."""
    return re.sub(_ESCAPE, _normal_escape, path)


def spellings(path: str) -> str:
    """A regular expression matching every spelling of the :func:`normal_path` ``path`` that RFC 3986 § 6.2.2
    calls the same: each unreserved character as itself or its escape, each escape's hex digits in either
    case (``/A`` → ``/(?:A|%41)``). Its groups capture nothing."""
    parts = []
    # (a path without escapes is one piece: its pattern is not compiled at start for the usual routes)
    for piece in re.split(r"(%[0-9A-F]{2})", path) if "%" in path else (path,):
        if piece.startswith("%"):
            parts.append("%" + "".join(_either_case(digit) for digit in piece[1:]))
            continue
        for char in piece:
            if char in _UNRESERVED:
                escape = "%" + "".join(_either_case(digit) for digit in f"{ord(char):02X}")
                parts.append(f"(?:{re.escape(char)}|{escape})")
            else:
                parts.append(re.escape(char))
    return "".join(parts)


def _normal_escape(match: re.Match[str]) -> str:
    char = chr(int(match[1], 16))
    return char if char in _UNRESERVED else match[0].upper()


def _either_case(digit: str) -> str:
    return f"[{digit}{digit.lower()}]" if digit.isalpha() else digit
