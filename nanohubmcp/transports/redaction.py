"""Credentials kept out of what is printed: which query parameters and headers hold one, and text with them hidden.

Gives :func:`is_secret_name` (from :mod:`nanohubmcp.protocol.credentials`), the one rule for which query,
fragment and header names hold a credential (the server's access log writes no such value:
:func:`.access_log.redacted_uri`; nor does a state URL as printed), and, for a client that prints what it
sends to (the stdio↔HTTP bridge), :func:`secrets_of` (the credentials in a URL and a request's headers)
and :func:`redact` (text with each of them replaced by ``***``: ``…/mcp?token=***``,
``http://user:***@host/``, ``Bearer ***``; :func:`hide_userinfo` alone for a URL's ``user:password@``,
:func:`hide_query_secrets` alone for the credential query parameters of every URL in a text, whatever
their length, :func:`hide_userinfo_unparsed` for a URL no parser reads), and :func:`authority`, a URL's
``host[:port]`` without its user information.
Imports nothing but the standard library and that module, so the bridge uses it without loading the
server's side.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import unquote, urlsplit

from ..protocol.credentials import (
    MASK,
    PLACEHOLDER,
    SECRET_QUERY_NAMES,
    hide_query_secrets,
    hide_userinfo_unparsed,
    is_secret_name,
    userinfo_cut_short,
)

__all__ = ["MASK", "PLACEHOLDER", "SECRET_QUERY_NAMES", "authority", "hide_query_secrets", "hide_userinfo",
           "hide_userinfo_unparsed", "is_secret_name", "is_secret_query_name", "redact", "secrets_of"]

_ISOLATED_BELOW = 8
"""A credential shorter than this is hidden only where it stands alone (not inside a longer word),
so that ``?token=1`` does not turn every ``1`` of a message into ``***``."""
_DELIMITED = re.compile(r"[:/?#]")
"""A secret holding one of these is no word or number that a text holds by chance."""


is_secret_query_name = is_secret_name
"""(The name this rule had when it was the query parameters' alone.)"""


def secrets_of(url: str, headers: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The credentials that ``url`` and ``headers`` carry, as they may appear in text, longest first.

    From the URL: the password of ``user:password@`` (a bare ``user@``, which may be a token; of a URL whose
    password may have read as its port, :func:`.credentials.userinfo_cut_short`, all before its last ``@``), and the
    value of each query or fragment parameter (``#access_token=``) that :func:`is_secret_name` names (the
    legacy SSE endpoint's ``session_id`` among them), each as written and decoded. From the headers: the
    value of each whose name says it carries a credential (``Authorization``, ``Cookie``, ``X-API-Key``, ...); of an
    ``Authorization`` header only the credential after its scheme (``Bearer T``), of a ``Cookie`` only
    each cookie's value, so that what they were stays readable (``Bearer ***``, ``session=***``).
    """
    found: set[str] = set()
    try:
        parts = urlsplit(url)
        # A user beside a password is shown (as state URLs show it); a bare one may be a token.
        found.update(filter(None, (parts.password if parts.password is not None else parts.username,)))
        for raw in f"{parts.query}&{parts.fragment}".split("&"):
            name, eq, value = raw.partition("=")
            if eq and is_secret_name(unquote(name)):
                found.update((value, unquote(value.replace("+", " "))))
    except ValueError:  # an unparsable URL: its text is hidden only through the headers' credentials
        pass
    if userinfo_cut_short(url):  # http://bob:8000/s3cret@host/mcp: all before the last @ may be a password
        found.add(url.strip().partition("://")[2].rpartition("@")[0])
    for name, value in (headers or {}).items():
        if not is_secret_name(name):
            continue
        lowered = name.lower()
        credential = value.strip().partition(" ")[2]
        if "authorization" in lowered and credential.strip():
            found.add(credential.strip())  # the scheme (Bearer, Basic, token) stays readable
        elif lowered == "cookie":
            found.update(cookie.partition("=")[2].strip() for cookie in value.split(";"))
        else:
            found.add(value.strip())
    found.update(unquote(secret) for secret in list(found))
    # A placeholder left in (``?token=<your Jupyter token>``) is no credential: shown, it says what is wrong.
    return tuple(sorted((secret for secret in found if secret.strip() and not re.fullmatch(PLACEHOLDER, secret)),
                        key=len, reverse=True))


_USERINFO = r"(://)([^/?#\s]*)@"
"""The user information of a URL in text: after ``://``, everything up to the authority's last ``@``. (No
scheme is matched before it: a scheme pattern such as ``[a-z][a-z0-9+.-]*`` tried from every word of a
``a.a.a…`` text is quadratic; from each ``://`` the search is linear in the text's length.)"""


def hide_userinfo(text: str) -> str:
    """``text`` with the credential of every URL's user information shown as :data:`MASK`: the password of
    ``http://user:password@host/`` (``http://user:***@host/``), or a bare ``http://user@host/``, which
    may be a token (``http://***@host/``), however short it is.

    Example:
        >>> hide_userinfo("cannot reach http://bob:pw1@127.0.0.1:8000/mcp")
        'cannot reach http://bob:***@127.0.0.1:8000/mcp'
    """
    def shown(found: re.Match[str]) -> str:
        user, colon, _ = found.group(2).partition(":")
        return f"{found.group(1)}{user}:{MASK}@" if colon else f"{found.group(1)}{MASK}@"

    return re.sub(_USERINFO, shown, text)


def authority(url: str) -> str:
    """The ``host[:port]`` of ``url``, without any user information: what a ``Host`` header carries and
    what a message names as the server (``http://bob:pw@h:8000/mcp`` → ``h:8000``)."""
    return urlsplit(url).netloc.rpartition("@")[2]


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every one of ``secrets`` (:func:`secrets_of`) replaced by :data:`MASK`, the value of
    every credential query parameter of a URL in it too (:func:`hide_query_secrets`), and every URL's
    user information hidden (:func:`hide_userinfo`).

    A secret of :data:`_ISOLATED_BELOW` characters or more, or of four or more holding ``:``, ``/``, ``?`` or
    ``#`` (no word or number: ``u:12#s``, a user and password cut short), is replaced wherever it occurs; a
    shorter one only where it stands alone (no letter, digit or ``_.:/%-`` touches it: ``?token=1`` leaves
    ``127.0.0.1`` as it is) or where it is a URL's query value (``?token=1:`` → ``?token=***:``).

    Example:
        >>> url = "http://127.0.0.1:8888/user/a/nanohubmcp/8000/mcp?token=0123456789abcdef"
        >>> redact(f"cannot reach {url}", secrets_of(url))
        'cannot reach http://127.0.0.1:8888/user/a/nanohubmcp/8000/mcp?token=***'
    """
    for secret in secrets:
        if len(secret) >= _ISOLATED_BELOW or (len(secret) >= 4 and _DELIMITED.search(secret)):
            text = text.replace(secret, MASK)
        elif secret:
            text = re.sub(rf"(?<![\w.:/%-]){re.escape(secret)}(?![\w.:/%-])", MASK, text)
    return hide_userinfo(hide_query_secrets(text))
