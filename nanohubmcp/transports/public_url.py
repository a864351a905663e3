"""The one rule a public URL (``run(public_url=...)``, ``--public-url``, ``$MCP_PUBLIC_URL``,
``%config NanohubMCP.public_url``, ``start_mcp --public-url``) follows, wherever it is given.

A public URL is written into response headers (``WWW-Authenticate``) and into every document the server
serves, and clients build their request URLs from it: a space or a control character anywhere in it (a
line break in a header is a 500 for every 401), a host no client can reach, or a query a base URL cannot
carry are refused here, before anything is served. Each caller names the setting in its own words (the
option, the ``%config`` setting, the ``run()`` argument) in front of the message.

An allowed origin (``run(allowed_origins=[...])``, ``--allowed-origins``) names a host the same way, so
:func:`checked_origin` takes it by the same rule and gives it in the form browsers send in ``Origin``.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from ..errors import ConfigurationError
from ..protocol.message_values import shown_value
from .url_path import prefix_path

__all__ = ["EXAMPLE", "checked_origin", "checked_public_url"]

EXAMPLE = "https://tools.example.org/"
"""A public URL as the refusals show one."""

# Patterns as text: ``re`` compiles them at their first use (a server given no public URL never does).
_HOST = r"(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])+|\[[0-9A-Fa-f:.]+\]"
"""A host as written: RFC 3986 § 3.2.2 reg-name (plus a name in another script, an IDN) or an IPv6 literal."""
_PORT = r":[0-9]*$"
_NUMBER = r"[0-9]+|0[xX][0-9A-Fa-f]*"
"""A last label that makes a host an IPv4 address to a WHATWG URL parser (decimal, or hex after ``0x``)."""
_MOST_LABEL = 63
"""Octets of one DNS label at most (RFC 1035 § 2.3.4)."""
_MOST_NAME = 253
"""Characters of a DNS name at most, without its final dot (RFC 1035's 255 octets on the wire)."""


def checked_public_url(text: str) -> str:
    """``text`` as the base URL clients are told about: stripped of surrounding white space, ending in ``/``.

    Args:
        text: an absolute http(s) URL: scheme, host, optional port and path (``https://h.example/tools``).

    Returns:
        The URL without surrounding white space and with one trailing ``/``
        (``" https://h.example/tools"`` → ``"https://h.example/tools/"``), a port written with leading zeros
        as its number (``:00080`` → ``:80``), an empty port dropped (``x.org:`` → ``x.org``), a host name in
        another script in its ASCII (IDNA) form, the one clients send (``bücher.example``, ``Bücher.Example`` →
        ``xn--bcher-kva.example``), a percent-encoded host decoded first (``b%C3%BCcher.example``, as clients
        decode it).

    Raises:
        ConfigurationError: one line starting with ``repr(text)``, saying what to give instead, when the URL
            holds a space or a control character anywhere (host, port or path: ``'https://h\\n.com/'``), is not
            http(s) with a host and a numeric port, has port 0, carries a user, query or fragment, has a host
            with a character no host name holds (``"``, ``<``, a ``%`` not followed by two hex digits), an
            empty or hyphen-bounded DNS label (``x..org``, ``-x.org``), a label over 63 octets or a name over
            253, or a last label that is a number in a host that is no IPv4 address (``1.2.3.999``), or a
            path with a character to percent-encode (a ``%`` not followed by two hex digits too), a
            ``.``/``..`` segment (a client normalizes it to another path) or an empty one (``//a``), or a port
            that is no number from 1 to 65535 (``:65536``, ``:80:80``, named), or a host name in another script
            that has no IDNA form, or a percent-encoded host that decodes to no name (no UTF-8, or a ``/``,
            ``:``, ``%``, space or control character).

    .. versionchanged:: 1.0
       A name in another script is taken in any case, and a percent-encoded host decoded (was refused as
       having no ASCII form, and kept as written: every request naming it got 421).

    Example:
        >>> checked_public_url("https://tools.example.org/me")
        'https://tools.example.org/me/'
    """
    if not isinstance(text, str):
        raise ConfigurationError(f"{shown_value(text)} is not an http:// or https:// URL with a host, e.g. {EXAMPLE}")
    value = text.strip()
    # urlsplit drops tabs and line breaks before it parses (WHATWG): look at the text itself first
    bad = next((char for char in value if char.isspace() or not char.isprintable()), None)
    if bad is not None:
        raise ConfigurationError(
            f"{text!r} holds {'a space' if bad == ' ' else f'a control character (U+{ord(bad):04X})'}: a URL holds "
            f"none, in its host or its path (percent-encode one in the path, e.g. {EXAMPLE}my%20tool/)")
    try:
        parts = urlsplit(value)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(f"{text!r} is not an http:// or https:// URL with a host, e.g. {EXAMPLE}")
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number from 0 to 65535
    except ValueError:
        port = parts.netloc.rpartition("@")[2].rpartition("]")[2].partition(":")[2]
        raise ConfigurationError(f"{text!r}: the port {port!r} is no port a client can reach; give a number from "
                                 f"1 to 65535, or none, e.g. {EXAMPLE}") from None
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
    if "%" in host:
        # a host may percent-encode its name's UTF-8 (b%C3%BCcher.example); clients send the name it spells
        host = _decoded_host(text, host)
    problem = None if host.startswith("[") else _name_problem(host)
    if problem:
        raise ConfigurationError(f"{text!r}: the host {problem}, e.g. {EXAMPLE}")
    if not prefix_path(parts.path):
        raise ConfigurationError(f"{text!r}: the path holds a character to percent-encode (a '%' not followed by "
                                 "two hex digits too), a '.'/'..' segment or an empty one ('//'); give a path such as "
                                 f"{EXAMPLE}my%20tool/")
    if not host.isascii():
        # clients send a name in another script as its ASCII form in Host and Origin: the checks must know that one
        ascii_host = _ascii_name(host.lower())  # (a DNS name is one in any case: Bücher.Example too)
        if ascii_host is None:
            raise ConfigurationError(f"{text!r}: the host {host!r} has no one ASCII (IDNA) form; write the "
                                     "name in its xn-- form, e.g. http://xn--bcher-kva.example/")
        host = ascii_host
    bad_label = next((label for label in host.lower().split(".") if label.startswith("xn--")
                      and not _is_punycode(label)), None)
    if bad_label is not None:
        raise ConfigurationError(f"{text!r}: the host's label {bad_label!r} spells no name (an xn-- label is the "
                                 "Punycode of letters and digits, e.g. xn--bcher-kva for bücher); write the name "
                                 "itself, e.g. http://bücher.example/")
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    if netloc != parts.netloc:
        # ':00080' is port 80: the browser's Origin says 'http://x.org', which the check must know it by
        value = parts._replace(netloc=netloc).geturl()
    return value.rstrip("/") + "/"


def checked_origin(text: str) -> str:
    """``text`` as the ``Origin`` a browser on that site sends: ``scheme://host[:port]``, lower case, a name in
    another script in its ASCII (IDNA) form, the scheme's default port left out.

    Args:
        text: an http(s) origin, ``scheme://host[:port]`` (one trailing ``/`` is taken too).

    Returns:
        The origin as browsers send it (``http://Bücher.example:80/`` → ``http://xn--bcher-kva.example``).

    Raises:
        ConfigurationError: one line starting with ``repr(text)``, when it is no http(s) origin (another
            scheme, a path, query, fragment or user, a wildcard such as ``*.example``), or its host or port is
            one :func:`checked_public_url` refuses (the same words).

    Example:
        >>> checked_origin("https://App.Example.org:443")
        'https://app.example.org'
    """
    value = text.strip()
    try:
        parts = urlsplit(value)
    except ValueError:
        parts = None
    if (parts is None or parts.scheme.lower() not in ("http", "https") or not parts.netloc
            or parts.path not in ("", "/") or parts.query or parts.fragment or "@" in parts.netloc
            or value.endswith(("?", "#")) or "*" in parts.netloc):
        raise ConfigurationError(f"{text!r} is not an origin: give scheme://host[:port] with scheme http or https, "
                                 "e.g. https://app.example.org (no path, no wildcard)")
    url = urlsplit(checked_public_url(f"{parts.scheme.lower()}://{parts.netloc}"))
    netloc = url.netloc.lower()
    default_port = {"https": ":443", "http": ":80"}[url.scheme]
    return f"{url.scheme}://{netloc.removesuffix(default_port)}"  # browsers send the origin without it


def _is_punycode(label: str) -> bool:
    """True when an ``xn--`` label (lower case) is the Punycode of a name a browser takes: it decodes, spells
    itself back, and holds letters, marks, digits and ``-`` only (``xn--zz`` decodes to nothing, ``xn--ss-xxx``
    to a symbol)."""
    import unicodedata

    try:
        name = label.encode("ascii").decode("idna")
        spelled = name.encode("idna").decode("ascii")
    except UnicodeError:
        return False
    return spelled == label and all(char == "-" or unicodedata.category(char)[0] in "LMN" for char in name)


def _decoded_host(text: str, host: str) -> str:
    """``host`` (holding a ``%XX``) with its percent-encoded UTF-8 decoded, as clients decode it
    (WHATWG URL's host parser): ``b%C3%BCcher.example`` → ``bücher.example``.

    Raises:
        ConfigurationError: naming ``text``, when the bytes are no UTF-8, or decode to what no host name holds
            (``/``, ``:``, a space or a control character, another ``%``).
    """
    try:
        name = unquote(host, errors="strict")
    except UnicodeDecodeError:
        name = ""
    if not name or "%" in name or not re.fullmatch(_HOST, name) or not all(
            char.isprintable() and not char.isspace() for char in name):
        raise ConfigurationError(f"{text!r}: the host's percent-encoded characters are no UTF-8 of a name (or "
                                 "decode to one no host name holds); write the name itself, e.g. "
                                 "http://bücher.example/ or http://xn--bcher-kva.example/")
    return name


def _ascii_name(host: str) -> str | None:
    """``host`` (lower case) with each label in another script in its IDNA ASCII form (``bücher.example`` →
    ``xn--bcher-kva.example``, by Python's ``encodings.idna``, RFC 3490), or None for a name that has none, or
    one that form does not spell back (``straße`` is ``strasse`` to RFC 3490, ``xn--strae-oqa`` to browsers)."""
    try:
        ascii_host = host.encode("idna").decode("ascii")
        spelled = ascii_host.encode("ascii").decode("idna")
    except UnicodeError:
        return None
    return ascii_host if spelled == host else None


def _name_problem(host: str) -> str | None:
    """What keeps ``host`` (a name or an IPv4 address, as written in the URL) from being one a client resolves,
    or None.

    A DNS name (RFC 1123 § 2.1, RFC 1035 § 2.3.4): no empty label (``x..org``; one final dot, ``x.org.``, is a
    fully qualified name), none beginning or ending with ``-``, none over 63 octets and at most 253 in all,
    a label in another script counted in its ASCII (``xn--``) form. A host whose last label is a number
    (``1.2.3.999``, ``x.org.1``, ``0x7f``) is read as an IPv4 address by clients (WHATWG URL: "ends in a
    number"), so it must be one written as four decimal numbers 0-255 (``127.1`` and ``0x7f.0.0.1`` name
    127.0.0.1 to a browser, whose ``Origin`` then names that address, not what was given).
    """
    labels = host.removesuffix(".").split(".")
    if any(not label or label.startswith("-") or label.endswith("-") for label in labels):
        return "has an empty name between dots, or one that begins or ends with '-' (no DNS name does); give a name"
    if re.fullmatch(_NUMBER, labels[-1]):
        import ipaddress  # only for a host ending in a number

        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return (f"{host!r} ends in a number, so clients read it as an IPv4 address, which it is not (four "
                    "numbers 0-255 such as 192.0.2.1, no leading zeros); give such an address or a name")
        return None
    sizes = [len(label) if label.isascii() else len("xn--") + len(label.lower().encode("punycode")) for label in labels]
    if max(sizes) > _MOST_LABEL or sum(sizes) + len(sizes) - 1 > _MOST_NAME:
        return (f"has a name longer than {_MOST_LABEL} characters between dots, or is longer than {_MOST_NAME} in "
                "all (no DNS name is); give a name")
    return None
