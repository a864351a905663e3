"""Which names hold a credential, and text with such values hidden: the one rule of every place that prints a
URL or a header (the bridge's messages, the server's access log, a state URL as printed).

:func:`is_secret_name` (a query, fragment or header parameter's name), :func:`hide_query_secrets` (the credential
query and fragment values of every URL in a text), :func:`hide_userinfo_unparsed` (a URL no parser reads: all
before its last ``@``), :func:`userinfo_cut_short` (a URL that parses, but whose password may have read as its
port). Imports nothing but the standard library (``transports.redaction`` builds on it).
"""

from __future__ import annotations

import re
from itertools import pairwise
from urllib.parse import unquote

__all__ = ["MASK", "PLACEHOLDER", "SECRET_QUERY_NAMES", "hide_query_secrets", "hide_userinfo_unparsed",
           "is_secret_name", "userinfo_cut_short"]

MASK = "***"
"""What a credential is shown as."""
SECRET_QUERY_NAMES = frozenset({"token", "access_token", "id_token", "refresh_token", "api_key", "apikey", "key",
                                "password", "secret", "code", "client_secret", "_xsrf", "client_assertion"})
"""Some query parameters whose values are never written (a Jupyter ``?token=`` or ``?_xsrf=`` reaching the server
through a proxy route, an OAuth code); :func:`is_secret_name` is the rule, which names more."""
_SECRET_ENDINGS = ("token", "secret", "password", "passwd", "passphrase", "credential", "signature", "jwt",
                   "apikey", "accesskey", "sessionid", "sessid", "cookie", "xsrf", "csrf", "assertion")
"""A word (singular) ending with one of these names a credential: ``access_token``'s ``token``, ``csrftoken``,
``Jupyter_Token``, ``client_secret``, ``dbpassword``, ``X-Amz-Credential``, ``JSESSIONID``, ``Set-Cookie``,
``_xsrf``, ``client_assertion``; not ``tokenizer`` (its word is no credential's)."""
_SECRET_WORDS = frozenset({"key", "keyid", "auth", "authn", "authz", "oauth", "authorization", "authentication",
                           "pass", "pwd", "passcode", "passkey", "sig", "sid", "session", "otp", "totp", "hmac",
                           "bearer", "ticket"})
"""A word (singular) that is one of these names a credential: ``api-key``, ``access_key``, ``apiKey``,
``AWSAccessKeyId``, ``auth``, ``Proxy-Authorization``, ``pass_phrase``, ``sig``, ``session``, a CAS
``ticket``; not ``keyword``, ``author`` or ``passage`` (other words)."""
_HOLDING_WORDS = frozenset({"count", "counts", "num", "type", "types", "kind", "column", "columns", "col", "file",
                            "path", "dir", "length", "len", "limit", "size", "name", "names", "id", "ids", "index",
                            "idx", "usage", "budget", "ttl", "expiry", "expires", "expiration", "lifetime", "age"})
"""A last word that says the name holds something about a credential, not one (``token_count``, ``key_column``,
``token_type``, ``password_file``, ``token_id``): shown, unless it reads as one with the word before it
(``session_id``, ``key_id``)."""
_COUNTING_WORDS = frozenset({"max", "min", "num", "n", "nr", "total", "count"})
"""A word that, before a credential word that ends the name, makes the name a number of them: ``max_tokens``,
``max_new_tokens``, ``num_keys``, S3's ``max-keys``."""
_TOKEN_KINDS = frozenset({"prompt", "completion", "input", "output", "reasoning", "cached", "context", "generated"})
"""A word that, just before ``token(s)``, names a language model's count of them: ``prompt_tokens``,
``completion_tokens``."""
_SECRET_NAMES = frozenset({"code", "device_code", "user_code", "verification_code", "authorization_code",
                           "mfa_code", "code_verifier", "pin"})
"""A name that is a credential whole: an OAuth ``?code=``, a device flow's codes, a PKCE ``code_verifier``,
a ``pin`` (not ``error_code``, ``status_code`` or ``pin_memory``)."""
_SECRET_PREFIXES = ("x_amz_",)
"""A name starting so belongs to a pre-signed URL's signature (``X-Amz-Signature``, ``X-Amz-Credential``...)."""
PLACEHOLDER = r"<[^<>]{1,80}>"
"""A placeholder as the docs and a notebook's status write one (``<your Jupyter token>``): no credential
(a pattern's text: ``re`` compiles it at its first use, never at the server's start)."""


def is_secret_name(name: str) -> bool:
    """Whether ``name`` (decoded), a query or fragment parameter's or a header's, names a credential: the one
    rule of the bridge's messages (``transports.redaction.secrets_of``, :func:`hide_query_secrets`), the
    server's access log (``transports.access_log.redacted_uri``) and a state URL as printed (``state.url.redact``).

    The name is read as words (split at ``-``, ``_``, ``.``... and where lower case turns upper, lower-cased;
    a number dropped: ``api_key_2``, ``key2``, ``X-Hub-Signature-256``), each word singular (``tokens``,
    ``api_keys``). It names a credential when ANY word, or two neighbouring words read as one (``pass_word``,
    ``session_id``, ``key_id``),

    - ends with ``token``, ``secret``, ``password``, ``passwd``, ``passphrase``, ``credential``, ``signature``,
      ``jwt``, ``apikey``, ``accesskey``, ``sessionid``, ``sessid``, ``cookie``, ``xsrf``, ``csrf`` or
      ``assertion`` (``access_tokens``, ``csrftoken``, ``X-XSRF-TOKEN``, ``client_secret``, ``dbpassword``,
      ``Mcp-Session-Id``, ``JSESSIONID``, ``PHPSESSID``, ``cookie_value``, ``password_hash``);
    - is ``key``, ``keyid``, ``auth``, ``authn``, ``authz``, ``oauth``, ``authorization``, ``authentication``,
      ``pass``, ``pwd``, ``passcode``, ``passkey``, ``sig``, ``sid``, ``session``, ``otp``, ``totp``, ``hmac``,
      ``bearer`` or ``ticket`` (``api-key``, ``X-Api-Key-Header``, ``private_key_pem``, ``auth_code``,
      ``pass_phrase``, ``sig_v4``, ``connect.sid``; ``session`` alone usually carries a session's identifier);

    or the name is ``code``, ``device_code``, ``user_code``, ``verification_code``, ``authorization_code``,
    ``mfa_code``, ``code_verifier`` or ``pin`` (not ``error_code``), or starts ``X-Amz-`` (a pre-signed URL's
    signature parameters). Such a name is still shown (it holds no credential, only something about them)
    when its last word

    - says what it holds: ``count``, ``type``, ``kind``, ``column``, ``file``, ``path``, ``dir``, ``length``,
      ``limit``, ``size``, ``name``, ``id``, ``index``, ``usage``, ``budget``, ``ttl``, ``expiry``, ``age``...
      (``token_count``, ``key_column``, ``token_type``, ``password_file``, ``token_id``), except where the two
      last words read as one credential (``session_id``, ``key_id``);
    - is a credential word counted: after ``max``, ``min``, ``num``, ``n``, ``total`` or ``count``
      (``max_tokens``, ``max_new_tokens``, S3's ``max-keys``), or ``token(s)`` just after ``prompt``,
      ``completion``, ``input``, ``output``, ``reasoning``, ``cached``, ``context`` or ``generated``
      (``prompt_tokens``).

    Anything else keeps it hidden (fail closed): ``api_key_value``, ``token_b64``, ``sort_key``. A name with
    no credential word is shown: ``keyword``, ``tokenizer``, ``author``, ``passage``, ``client_id``.

    Example:
        >>> [is_secret_name(n) for n in ("api-key", "X-Amz-Signature", "passwd", "#access_token", "api_keys")]
        [True, True, True, True, True]
        >>> [is_secret_name(n) for n in ("max_tokens", "token_count", "key_column", "keyword", "error_code")]
        [False, False, False, False, False]
    """
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    normal = re.sub(r"[^a-z0-9]+", "_", spaced).strip("_")
    if normal in _SECRET_NAMES or normal.startswith(_SECRET_PREFIXES):
        return True
    words = [_singular(part.rstrip("0123456789")) for part in normal.split("_")]
    words = [word for word in words if word]
    pairs = [first + second for first, second in pairwise(words)]
    if not any(_is_credential_word(word) for word in (*words, *pairs)):
        return False
    last = words[-1]
    if last in _HOLDING_WORDS and len(words) > 1:
        return _is_credential_word(pairs[-1])
    before = words[:-1]
    counted = any(word in _COUNTING_WORDS for word in before) or (
        last == "token" and bool(before) and before[-1] in _TOKEN_KINDS)
    return not (counted and _is_credential_word(last))


def _singular(word: str) -> str:
    """``word`` without a plural ``s`` when its singular is a credential word (``tokens``, ``keys``)."""
    if word.endswith("s") and _is_credential_word(word[:-1]):
        return word[:-1]
    return word


def _is_credential_word(word: str) -> bool:
    return word in _SECRET_WORDS or word.endswith(_SECRET_ENDINGS)


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


def userinfo_cut_short(url: str) -> bool:
    """Whether ``url``, which parses, may still hold a ``user:password@`` that a parser did not find: a
    password starting with digits then an unescaped ``/``, ``?`` or ``#`` reads as a port
    (``redis://u:123#ss@host:6379/0``: host ``u``, port 123; ``http://bob:8000/s3cret@host/mcp``). Said when
    the authority ends in ``:`` and digits, holds no ``@``, and the piece after its delimiter (up to the next
    ``/``, ``?`` or ``#``) holds an ``@`` after something: :func:`hide_userinfo_unparsed` is then what shows
    it. (A path whose first segment holds an ``@`` after a port, ``http://h:8000/a@b/mcp``, is hidden so too;
    ``/@user`` and an ``@`` further on, ``/mcp?mail=a@b``, are not.)

    Example:
        >>> [userinfo_cut_short(u) for u in ("redis://u:123#ss@h:6379/0", "http://h:8000/mcp?mail=a@b")]
        [True, False]
    """
    _, mark, rest = url.partition("://")
    authority = re.match(r"[^/?#]*", rest)
    netloc = authority.group(0) if authority and mark else ""
    if "@" in netloc or not re.search(r":\d+$", netloc):
        return False
    piece = re.match(r"[^/?#]*", rest[len(netloc) + 1:])
    return piece is not None and piece.group(0).find("@") > 0


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
