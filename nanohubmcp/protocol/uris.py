"""URI schemes, which RFC 3986 § 3.1 makes case-insensitive: :func:`fold_scheme` puts one in lower case, so
that ``CONFIG://lab`` and ``config://lab`` name one resource. The registry folds a URI once per read and a
template's scheme once when it is compiled; subscriptions (``resources/subscribe``, ``unsubscribe``, a 2026
``subscriptions/listen``) are matched on the folded form too, in the server and in the shared state store.
The rest of a URI is compared exactly. Here, below the server and the state store, so that both can use it.
:func:`bad_escape` finds a ``%`` that does not begin a percent-escape (RFC 3986 § 2.1), which a template's
values could not be decoded through.

Source: RFC 3986 § 2.1 (Percent-Encoding), § 3.1 (Scheme).
"""

from __future__ import annotations

import re

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def fold_scheme(uri: str) -> str:
    """``uri`` with its scheme (the text before the first ``:``, RFC 3986 § 3.1) in lower case; the rest
    is kept. A URI without a scheme (or whose text before ``:`` is not one) is returned as it is, as is
    one whose scheme is in lower case already (the same object: no copy)."""
    colon = uri.find(":")
    scheme = uri[:colon]
    if colon < 1 or scheme.islower() or not _SCHEME.fullmatch(scheme):
        return uri
    return scheme.lower() + uri[colon:]


def bad_escape(uri: str) -> str | None:
    """The first ``%`` of ``uri`` not followed by two hexadecimal digits, with what follows it (``"%ZZ"``,
    ``"%4"``, ``"%"`` at the end); None when every ``%`` begins a percent-escape."""
    if "%" not in uri:
        return None
    found = _BAD_ESCAPE.search(uri)
    return None if found is None else uri[found.start():found.start() + 3]
