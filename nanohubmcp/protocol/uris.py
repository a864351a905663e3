"""URI schemes, which RFC 3986 § 3.1 makes case-insensitive: :func:`fold_scheme` puts one in lower case, so
that ``CONFIG://lab`` and ``config://lab`` name one resource. The registry folds a URI once per read and a
template's scheme once when it is compiled.
:func:`normal_escapes` puts a URI's percent-escapes in the form RFC 3986 § 6.2.2 compares: an escaped
unreserved character (``%6C``, ``%7E``) is the character itself (``l``, ``~``), and the hexadecimal digits of
the other escapes are in upper case (``%2f`` is ``%2F``, still an escape: a reserved character's escape is not
the character). :func:`comparison_form` applies both, and ``resources/read`` matches fixed resources and
templates on it; no other part of a URI is normalised (no dot-segment removal, host case or default port).
Subscriptions (``resources/subscribe``, ``unsubscribe``, a 2026 ``subscriptions/listen``) are matched on
that form too, in the server and in the shared state store: ``data://%6Cab`` and ``data://lab`` are one.
Here, below the server and the state store, so that both can use it.
:func:`bad_escape` finds a ``%`` that does not begin a percent-escape (RFC 3986 § 2.1), which a template's
values could not be decoded through. :data:`MAX_URI_LENGTH` bounds a URI the server reads and one it registers.

Source: RFC 3986 § 2.1 (Percent-Encoding), § 2.3 (Unreserved Characters), § 3.1 (Scheme),
§ 6.2.2.1-2 (Case and Percent-Encoding Normalization).
"""

from __future__ import annotations

import re

# Patterns as text, compiled by ``re`` at their first use (and cached there): a server that reads no URI with
# a scheme in capitals or a ``%`` compiles none of them at start.
_SCHEME = r"[A-Za-z][A-Za-z0-9+.\-]*"
_BAD_ESCAPE = r"%(?![0-9A-Fa-f]{2})"
_ESCAPE = r"%([0-9A-Fa-f]{2})"
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

MAX_URI_LENGTH = 8192
"""The longest URI (characters) the server takes: ``resources/read``, ``subscribe`` and ``unsubscribe`` refuse a
longer ``params.uri`` (-32602) before it is matched against any template, and a resource (or template) registered
with a longer one is refused (it could never be read)."""


def fold_scheme(uri: str) -> str:
    """``uri`` with its scheme (the text before the first ``:``, RFC 3986 § 3.1) in lower case; the rest
    is kept. A URI without a scheme (or whose text before ``:`` is not one) is returned as it is, as is
    one whose scheme is in lower case already (the same object: no copy)."""
    colon = uri.find(":")
    scheme = uri[:colon]
    if colon < 1 or scheme.islower() or not re.fullmatch(_SCHEME, scheme):
        return uri
    return scheme.lower() + uri[colon:]


def _normal_escape(found: re.Match[str]) -> str:
    char = chr(int(found.group(1), 16))
    return char if char in _UNRESERVED else "%" + found.group(1).upper()


def normal_escapes(uri: str) -> str:
    """``uri`` with each escaped unreserved character (RFC 3986 § 2.3: letters, digits, ``-._~``) decoded
    and every other escape's hexadecimal digits in upper case: ``data://%6Cab%7e%2fx`` is
    ``data://lab~%2Fx``. A ``%`` that begins no escape is kept (see :func:`bad_escape`); a URI without
    ``%`` is returned as it is (the same object)."""
    if "%" not in uri:
        return uri
    return re.sub(_ESCAPE, _normal_escape, uri)


def comparison_form(uri: str) -> str:
    """``uri`` as resources are matched: :func:`fold_scheme`, then :func:`normal_escapes`."""
    return normal_escapes(fold_scheme(uri))


def bad_escape(uri: str) -> str | None:
    """The first ``%`` of ``uri`` not followed by two hexadecimal digits, with what follows it (``"%ZZ"``,
    ``"%4"``, ``"%"`` at the end); None when every ``%`` begins a percent-escape."""
    if "%" not in uri:
        return None
    found = re.search(_BAD_ESCAPE, uri)
    return None if found is None else uri[found.start():found.start() + 3]
