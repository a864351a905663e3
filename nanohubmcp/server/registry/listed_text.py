"""The text a list publishes of a component, checked when it is registered: its name, URI, title,
description, MIME type (a resource's, an icon's) and icon sources.

Each is a string (a number or bytes made the whole list fail), holds no UTF-16 surrogate (a client is sent
U+FFFD, or the character a pair stands for, in its place: a resource URI or prompt name it was shown then
names nothing), and, for a MIME type or an icon source, has the form clients read. A key a list pages by
(a resource's URI or template, a prompt's name) is at most :data:`MAX_KEY_CHARS` long (:func:`check_key`); a URI holds
no control, invisible or whitespace character (:func:`check_uri_characters`).
Each refusal is a ``RegistrationError`` naming the component, the option and what to write instead. The values a list
publishes inside ``meta``, annotations and schemas are ``schema.json_form``'s.

Source: MCP 2025-11-25, Basic § Icons (https: and data: URIs only); RFC 9110 § 8.3.1 (media types).
"""

from __future__ import annotations

import re
from typing import Final

from ...errors import RegistrationError
from ...protocol.message_values import shown_value
from ...protocol.uris import MAX_URI_LENGTH
from ...schema.paths import echoed

_TOKEN: Final = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_MIME: Final = (
    rf"{_TOKEN}/{_TOKEN}(?:[ \t]*;[ \t]*{_TOKEN}=(?:{_TOKEN}|\"(?:[^\"\\\x00-\x1f\x7f]|\\[^\x00-\x1f\x7f])*\"))*\Z")
"""``type/subtype``, each parameter ``; name=value`` (a token or a quoted string; RFC 9110 § 8.3.1): text that ``re``
compiles (and caches) at the first MIME type given, not at start (~1.9 M instructions; this module is on every
server's start path, a MIME type only on a resource's or an icon's)."""

MAX_KEY_CHARS: Final = MAX_URI_LENGTH
"""The longest key (characters) a list pages by: a resource's URI or template and a prompt's name (a tool's name is
1-128 characters, SEP-986). As long as the longest URI ``resources/read`` takes, so a listed resource can be read;
and a list's cursor, which holds the key of its page's last entry, stays within
:data:`~..handlers.cursors.MAX_CURSOR_CHARS` (a longer key gave a cursor the next page refused as not issued, and
the entries after it were never listed)."""

_NAMES_NOTHING: Final = ", and what it sends back then names nothing"
_ICON_EXAMPLE: Final = "e.g. 'https://example.org/icon.png' or 'data:image/png;base64,iVBORw0KGgo...'"


def check_text(label: str, option: str, value: object, *, uri: bool = False) -> str | None:
    """``value`` when it is None or a string a client can show and send back; else ``RegistrationError``
    ``"<label>: <option>=<value> ..."`` saying what to give instead: for bytes or a number (a list holding
    one failed as a whole, -32603, or the client refused it), or text holding a UTF-16 surrogate (sent as
    U+FFFD, so a resource read or prompt got by the name listed found nothing). ``uri``: the value is a
    URI (what to write instead escapes a byte that is not UTF-8 as ``%XX``)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise RegistrationError(f"{label}: {option}={shown_value(value)} is not a string; {text_fix(option, value)}",
                                option=option)
    if not value.isascii():
        from ...protocol.lone_surrogates import as_unicode, surrogate_in  # (only for text that is not ASCII)

        found = surrogate_in(value)
        if found is not None:
            shown = label.encode("utf-8", "backslashreplace").decode("utf-8")  # (a URI in it holds the surrogate too)
            raise RegistrationError(
                f"{shown}: {option}={shown_value(value)} holds the UTF-16 surrogate {found!r}, which is no character "
                "(a file name that is not UTF-8 holds one, as os.listdir reads it): a client is sent U+FFFD in its "
                f"place{_NAMES_NOTHING if option in ('uri', 'name') else ''}; write Unicode text, e.g. "
                f"{option}={shown_value(as_unicode(value, uri=uri))}", option=option)
    return value


def check_uri_characters(kind: str, uri: str) -> None:
    """``RegistrationError`` when ``uri`` (of a ``kind``, ``"resource"`` or ``"resource template"``) holds a character
    that prints as nothing, moves what follows or is blank (a control character, ESC among them, a line break, a
    bidirectional override such as U+202E, a zero-width one, a space): RFC 3986 has no place for one but
    percent-encoded, and a client shows the URI and sends it back. Letters of any script are taken (an IRI's)."""
    if uri.isprintable() and not any(c.isspace() for c in uri):
        return
    from urllib.parse import quote

    written = "".join(quote(c, safe="") if c.isspace() or not c.isprintable() else c for c in uri)
    raise RegistrationError(
        f"{kind} '{echoed(uri)}': URIs hold no control, invisible or whitespace character (RFC 3986); "
        f"percent-encode it, e.g. uri={echoed(written)!r}", option="uri")


def check_key(label: str, option: str, key: str) -> None:
    """``RegistrationError`` when ``key`` (a resource's URI or a prompt's name, ``option`` says which) is longer than
    :data:`MAX_KEY_CHARS`."""
    if len(key) > MAX_KEY_CHARS:
        what = "a URI" if option == "uri" else "a name"
        shown = label if len(label) <= 100 else label[:96] + "...'"  # (the label quotes the key)
        raise RegistrationError(
            f"{shown}: {option} is {len(key)} characters long; {what} of at most "
            f"{MAX_KEY_CHARS} characters is accepted (resources/read reads no longer URI, and a list's cursor holds "
            f"it); give a shorter {option}", option=option)


def text_fix(option: str, value: object) -> str:
    """What to give instead of ``value``, not a string, as ``option``: ``"give text, e.g. <option>='...'"``."""
    if isinstance(value, (bytes, bytearray)):
        return f"give text, e.g. {option}={bytes(value).decode('utf-8', 'replace')[:40]!r}"
    try:
        text = str(value)
    except ValueError:  # an int of over 4,300 digits
        return "give text"
    return f"give text, e.g. {option}={text[:40]!r}"


def check_mime_type(label: str, value: object) -> str | None:
    """``value`` when it is None or a MIME type (``type/subtype``, with ``; name=value`` parameters, as
    ``text/html;profile=mcp-app``); else ``RegistrationError`` naming ``label`` and ``mime_type`` (an empty
    text, ``"not a mime"``, or a line break that would start another header line)."""
    mime = check_text(label, "mime_type", value)
    problem = None if mime is None else mime_type_problem(mime, "mime_type='text/plain' or 'application/json; "
                                                                 "charset=utf-8'")
    if problem:
        raise RegistrationError(f"{label}: mime_type={shown_value(mime)} {problem}", option="mime_type")
    return mime


def mime_type_problem(mime: str, example: str) -> str | None:
    """What makes ``mime`` no MIME type clients read (``"is not a MIME type; give one as type/subtype, e.g.
    <example>, or leave it out"``), or None for ``type/subtype`` with ``; name=value`` parameters: the one check
    of a resource's ``mime_type`` and an icon's ``mimeType``."""
    if re.match(_MIME, mime):
        return None
    return f"is not a MIME type; give one as type/subtype, e.g. {example}, or leave it out"


def icon_src_problem(src: str) -> str | None:
    """What makes ``src`` an icon source clients refuse, or None for an ``https:`` URL with a host or a
    ``data:`` URI (MCP 2025-11-25, Basic § Icons: a client "MUST reject" ``javascript:``, ``file:``,
    ``http:`` and other schemes)."""
    if not src:
        return f"is empty; give an https: URL or a data: URI, {_ICON_EXAMPLE}"
    if re.search(r"[\x00-\x20\x7f]", src):
        return f"holds a space or a control character; percent-escape it (a space is %20), {_ICON_EXAMPLE}"
    scheme = src.partition(":")[0].lower() if ":" in src else ""
    if (scheme == "https" and re.match(r"https://[^/?#@]+", src, re.IGNORECASE)) or (scheme == "data" and "," in src):
        return None
    return ("is not an https: URL or a data: URI, the only icons a client may show (MCP 2025-11-25, Icons: "
            f"javascript:, file:, http: and the rest are refused); give one, {_ICON_EXAMPLE}")
