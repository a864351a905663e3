"""What a lone UTF-16 surrogate becomes. In a message to a client: U+FFFD where the server wrote the text,
the surrogate itself where the message echoes the client's own value (:func:`for_the_wire`). In text kept
as UTF-8 (a store): its JSON escape (:func:`utf8_storable`).

Python reads a file name that is not UTF-8 (``os.listdir`` on a Latin-1 name) with ``surrogateescape``:
``b"r\\xe9sultat"`` becomes ``"r\\udce9sultat"``. JSON can write that string only as the escape ``\\udce9``,
which is valid JSON text but not Unicode (RFC 8259 § 8.2: software receiving it behaves unpredictably). The
official MCP Python client (pydantic's parser) and serde refuse the whole message, so a tool listing such a
folder failed for the user; ``JSON.parse`` takes it. So what the server writes — a result (tools, resources,
prompts, ``structuredContent``, a REST answer), a notification's or a server request's params — carries
U+FFFD (``"\\ufffd"``) in place of each lone surrogate. The members that echo what the client sent keep it,
so a client that sent one can still match its answer: a message's ``id`` and ``error`` (error texts quote
the client's values) and a progress notification's ``progressToken``. A REST answer of a tool's
(``POST /tools/<name>``: its result, or its error text) is the tool's throughout, so none of its members is
kept (``echoes=False``).

A high surrogate followed by a low one (``"\\ud83d\\ude00"``, as CESU-8 bytes decoded with
``surrogatepass`` or text put together from UTF-16 code units give) is one character split in two: it is
written as that character (U+1F600 here), not as two U+FFFD. Only a surrogate without its partner is replaced.

What a list publishes of a component (a resource's URI, a prompt's name, a title, a schema's text) is
checked at registration instead (:func:`surrogate_in`): a client is sent U+FFFD, or the joined character,
and asks for the name it was shown, which is not the one registered. :func:`as_unicode` gives the text
to write there.

That decides what goes on the wire (``jsonenc.dumpb_parts``). Stores (jobs, kept results, provenance, the
relayed streams) keep the text as the tool returned it, and UTF-8 (SQLite, Redis, a file) has no form for a
lone surrogate either: :func:`utf8_storable` writes each as its JSON escape, the six characters
``\\ud800``, which reads back as the same text. Pure: no I/O, no encoder; the caller gives plain JSON values
or text.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from typing import Any, Final

__all__ = ["REPLACEMENT", "as_unicode", "for_the_wire", "surrogate_in", "utf8_storable", "wire_pieces"]

REPLACEMENT: Final = "\ufffd"
"""What each lone surrogate in server-written text becomes (the Unicode replacement character)."""

_ECHOED: Final = frozenset({"id", "error"})
"""A message's members that echo the client's values (its request id; error texts that quote its input)."""

_SURROGATE: Final = "[\ud800-\udfff]"  # (in a str each half of a pair is a code point of its own)
_PAIR: Final = "[\ud800-\udbff][\udc00-\udfff]"  # a high surrogate and the low one after it
_log = logging.getLogger("nanohubmcp.protocol")
_warned = [False]


def for_the_wire(message: Any, *, echoes: bool = True) -> Any:
    """``message`` (a JSON-RPC message, a batch of them, or a REST body: plain JSON values) with U+FFFD in
    place of each lone surrogate in the text the server wrote (keys too), and each surrogate pair joined
    into its character; ``id``, ``error`` and ``params.progressToken`` are kept as they are unless
    ``echoes`` is False. Logs a warning the first time it replaces a lone one in the process.

    Args:
        message: dicts, lists, str, numbers, bool, None, as ``jsonenc.plain`` leaves them, nested no deeper
            than ``nesting.WALK_DEPTH`` (``plain`` checked it).
        echoes: False for a body none of whose text echoes the client (a REST answer of a tool's): every
            member is the server's text.

    .. versionchanged:: 1.0
       A surrogate pair is written as the character it stands for (it was two U+FFFD); ``echoes``.
    """
    if not echoes:
        return _replaced(message)
    if isinstance(message, list):
        return [for_the_wire(item) for item in message]
    if not isinstance(message, dict):
        return _replaced(message)
    return {_replaced(key): value if key in _ECHOED else _params(value) if key == "params" else _replaced(value)
            for key, value in message.items()}


def wire_pieces(pieces: Iterable[str]) -> Iterator[str]:
    """The pieces of one text the server wrote (a kept result's, read a piece at a time), each as
    :func:`for_the_wire` writes that text whole: a surrogate pair joined into its character, one split
    between two pieces too, and each lone surrogate U+FFFD (warned about once, as there). A piece ending
    in a high surrogate gives that surrogate to the next piece; the pieces joined are the text written whole.
    """
    held = ""
    for piece in pieces:
        if held:
            piece, held = held + piece, ""
        if piece and "\ud800" <= piece[-1] <= "\udbff":  # the other half, if any, starts the next piece
            piece, held = piece[:-1], piece[-1]
        if piece:
            yield _replaced(piece)
    if held:
        yield _replaced(held)


def _params(params: Any) -> Any:
    if not isinstance(params, dict):
        return _replaced(params)
    return {_replaced(key): value if key == "progressToken" else _replaced(value) for key, value in params.items()}


def _replaced(value: Any) -> Any:
    if isinstance(value, str):
        text, count = re.subn(_SURROGATE, REPLACEMENT, value)
        if count and re.search(_PAIR, value) is not None:  # (rare) a character split in two: joined, not replaced
            text, count = re.subn(_SURROGATE, REPLACEMENT, re.sub(_PAIR, _joined, value))
        if count and not _warned[0]:
            _warned[0] = True
            _log.warning("a message to a client held text that is not Unicode (a lone UTF-16 surrogate, such as "
                         "a file name that is not UTF-8 read with os.listdir); each is written as U+FFFD "
                         "(said once; see the Scientific results page)")
        return text
    if isinstance(value, dict):
        return {_replaced(key): _replaced(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_replaced(item) for item in value]
    return value


def _joined(pair: re.Match[str]) -> str:
    found = pair.group()
    return chr(0x10000 + ((ord(found[0]) - 0xD800) << 10) + (ord(found[1]) - 0xDC00))


def utf8_storable(text: str) -> str:
    """``text`` as UTF-8 can hold it (a SQLite column, a Redis value, a file): ``text`` itself, or, when it
    holds a lone UTF-16 surrogate (``"\\ud800"``, valid JSON that a client may send and a tool echo;
    UTF-8 has no form for it), that text with each surrogate written as its JSON escape, the six
    characters ``\\ud800``.

    For JSON text (as ``jsonenc.dumps`` writes it: a surrogate stands only inside a string, never after an
    unescaped backslash) the result is JSON text of the same values, read back with the same
    surrogates; other text gets a readable stand-in. The same text always gives the same result, so a
    digest of it is stable.
    """
    if text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return re.sub(_SURROGATE, lambda found: f"\\u{ord(found.group()):04x}", text)
    return text


def surrogate_in(text: str) -> str | None:
    """The first UTF-16 surrogate code point in ``text`` (a lone one, or half of a pair), or None.

    Example:
        >>> surrogate_in("r\\udce9sultat"), surrogate_in("résultat")
        ('\\udce9', None)
    """
    if text.isascii():
        return None
    found = re.search(_SURROGATE, text)
    return None if found is None else found.group()


def as_unicode(text: str, *, uri: bool = False) -> str:
    """``text`` with no surrogate, for a message to say what to write instead: a pair joined into its
    character; U+DC80-U+DCFF (a byte that is not UTF-8, as ``os.listdir`` reads a Latin-1 file name) the
    byte's escape ``%XX`` in a URI (``uri=True``), else the Latin-1 letter of a byte from 0xA0 up (``é`` for
    0xE9); any other one ``_``.

    Example:
        >>> as_unicode("r\\udce9sultat"), as_unicode("data://r\\udce9sultat", uri=True)
        ('résultat', 'data://r%E9sultat')
    """
    def byte(found: re.Match[str]) -> str:
        code = ord(found.group()) - 0xDC00  # the byte, when it is one of 0x80-0xFF
        if uri and 0x80 <= code <= 0xFF:
            return f"%{code:02X}"
        return chr(code) if 0xA0 <= code <= 0xFF else "_"

    return re.sub(_SURROGATE, byte, re.sub(_PAIR, _joined, text))
