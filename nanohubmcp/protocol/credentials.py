"""Which names hold a credential, and text with such values hidden: the one rule of every place that prints a
URL or a header (the bridge's messages, the server's access log, a state URL as printed).

:func:`is_secret_name` (a query, fragment or header parameter's name), :func:`hide_query_secrets` (the credential
query and fragment values of every URL in a text), :func:`hide_userinfo_unparsed` (a URL no parser reads: all
before its last ``@``). Imports nothing but the standard library (``transports.redaction`` builds on it).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["MASK", "PLACEHOLDER", "SECRET_QUERY_NAMES", "hide_query_secrets", "hide_userinfo_unparsed",
           "is_secret_name"]

MASK = "***"
"""What a credential is shown as."""
SECRET_QUERY_NAMES = frozenset({"token", "access_token", "id_token", "refresh_token", "api_key", "apikey", "key",
                                "password", "secret", "code", "client_secret"})
"""Some query parameters whose values are never written (a Jupyter ``?token=`` reaching the server through a
proxy route, an OAuth code); :func:`is_secret_name` is the rule, which names more."""
_SECRET_PARTS = ("token", "secret", "password", "passwd", "credential", "signature", "jwt", "apikey", "accesskey",
                 "sessionid", "cookie")
"""A name holding one of these anywhere (normalised: lower case, no separators) names a credential:
``Jupyter_Token``, ``client_secret``, ``dbpassword``, ``X-Amz-Credential``, ``JSESSIONID``, ``Set-Cookie``."""
_SECRET_WORDS = frozenset({"key", "auth", "authn", "authz", "oauth", "authorization", "authentication", "pass",
                           "pwd", "passphrase", "passcode", "sig", "sid", "session"})
"""A name holding one of these as a whole word (split at ``-``, ``_``, ``.``... and at a lower-to-upper case
change) names a credential: ``api-key``, ``access_key``, ``apiKey``, ``auth``, ``Proxy-Authorization``,
``pass``, ``sig``, ``Mcp-Session-Id``; not ``keyword``, ``author`` or ``passage``."""
_SECRET_NAMES = frozenset({"code"})
"""A name that is a credential only alone: an OAuth ``?code=`` (not ``error_code``)."""
_SECRET_PREFIXES = ("x_amz_",)
"""A name starting so belongs to a pre-signed URL's signature (``X-Amz-Signature``, ``X-Amz-Credential``...)."""
PLACEHOLDER = r"<[^<>]{1,80}>"
"""A placeholder as the docs and a notebook's status write one (``<your Jupyter token>``): no credential
(a pattern's text: ``re`` compiles it at its first use, never at the server's start)."""
def is_secret_name(name: str) -> bool:
    """Whether ``name`` (decoded), a query or fragment parameter's or a header's, names a credential: the one
    rule of the bridge's messages (``transports.redaction.secrets_of``, :func:`hide_query_secrets`), the
    server's access log (``transports.routes.redacted_uri``) and a state URL as printed (``state.url.redact``).

    A name holding ``token``, ``secret``, ``password``/``passwd``, ``credential``, ``signature``, ``jwt``,
    ``apikey``, ``sessionid`` or ``cookie``; or the word ``key``, ``auth`` (``authorization``...), ``pass``,
    ``pwd``, ``sig``, ``sid`` or ``session``; or ``code`` alone; or ``X-Amz-*`` (case and ``-``/``_`` aside).

    Example:
        >>> [is_secret_name(n) for n in ("api-key", "X-Amz-Signature", "passwd", "#access_token", "keyword")]
        [True, True, True, True, False]
    """
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    normal = re.sub(r"[^a-z0-9]+", "_", words).strip("_")
    joined = normal.replace("_", "")
    return (normal in _SECRET_NAMES or normal.startswith(_SECRET_PREFIXES)
            or any(part in joined for part in _SECRET_PARTS)
            or not _SECRET_WORDS.isdisjoint(normal.split("_")))


def hide_userinfo_unparsed(url: str) -> str:
    """``url``, which does not parse as a URL (its port is no number, it names no host...), with everything
    between ``://`` and its last ``@`` shown as :data:`MASK`: a password holding an unescaped ``/``, ``?`` or
    ``#`` ends the authority where a parser looks for the user information, so what precedes the last ``@``
    may be a password whatever it holds, and is never shown. A URL without ``://`` or ``@`` is returned as is.

    Example:
        >>> hide_userinfo_unparsed("http://bob:pass/word@127.0.0.1:8000/mcp")
        'http://***@127.0.0.1:8000/mcp'
    """
    scheme, mark, rest = url.partition("://")
    if not mark or "@" not in rest:
        return url
    return f"{scheme}{mark}{MASK}@{rest.rpartition('@')[2]}"


_QUERY_VALUE = r"""(?P<lead>[?&;#](?P<name>[^=&#?;\s'"<>]+)=)(?P<value>[^&#;\s'"<>]+)"""
"""A query or fragment parameter in text: ``?name=``, ``&name=`` or ``#name=`` then its value, which ends at
the next parameter, fragment, space or quote (no backtracking: linear in the text's length)."""
_CLOSING = ":,.!?)]}"
"""Punctuation that closes a sentence: at a value's end (``from …?token=abc: not found``) it is the
sentence's, not the value's."""


def hide_query_secrets(text: str) -> str:
    """``text`` with the value of every query or fragment parameter that holds a credential
    (:func:`is_secret_name`, ``session_id`` among them) shown as :data:`MASK`, in every URL it writes, however
    short the value is and whatever follows the URL (``…/mcp?token=***: not found``).

    Example:
        >>> hide_query_secrets("HTTP 404 from http://h:8888/nanohubmcp/8000/mcp?token=abc: no kernel")
        'HTTP 404 from http://h:8888/nanohubmcp/8000/mcp?token=***: no kernel'
    """
    def shown(found: re.Match[str]) -> str:
        whole = found.group("value")
        value = whole.rstrip(_CLOSING) or whole[0]
        # A placeholder left in (``?token=%3Cyour%20Jupyter%20token%3E``) is no credential: shown, it says what
        # is wrong.
        placeholder = re.fullmatch(PLACEHOLDER, unquote(value.replace("+", " ")))
        if not is_secret_name(unquote(found.group("name"))) or placeholder:
            return found.group(0)
        return found.group("lead") + MASK + whole[len(value):]

    return re.sub(_QUERY_VALUE, shown, text)
