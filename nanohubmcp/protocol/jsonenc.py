"""Strict JSON out: the one encoder of everything the server puts on the wire.

:func:`dumps` writes compact, strict JSON text: every byte parses with a strict parser. What JSON has no form
for is ``protocol.foreign_values``' (``NaN`` and ``±Infinity`` become ``null``; a numpy or pandas value in a
message is written as the server's converter makes it, anything else raises TypeError); an int of more than
4,300 digits raises ValueError, whatever Python's own limit is set to (``protocol.long_ints``). :func:`dumpb` is
that text as UTF-8, with ``\\u`` escapes where text has no UTF-8 form (a lone surrogate), and
:func:`dumpb_parts` the bytes a transport sends, in parts.

Three stand-ins are copied into the text instead of being written again, each marked where it stands while
the standard library's C writer writes the rest, then spliced in: an :class:`~.encoded.Encoded` (an array's
or a table's values written once as JSON text: its text, quotes and all), a table's text block that carries
its escaped form (``protocol.escaped_text.KnownText``: that form, between the string's quotes) and a
:class:`~.text_pieces.TextPieces` (a kept file's text, read a piece at a time: :func:`dumpb_parts` leaves it
a part of its own, for a transport that escapes and sends it in pieces; every other writer writes its
string). :func:`plain` reads a value holding them as plain Python values.

This module owns the writing and the splicing. Reading JSON is ``protocol.jsondec``'s, how deep a value may
nest ``protocol.nesting``'s, the writer built once ``protocol.compact_json``'s; orjson (the ``fast`` extra,
``protocol.accelerator``) writes numeric arrays for the result converters, never here. The encoder imports
``escaped_text`` only once another module has (the result converters), never at start.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterable
from types import ModuleType
from typing import Any, Final

from ..errors import measure_data_with
from . import long_ints
from .compact_json import compact_chunks
from .encoded import Encoded
from .foreign_values import json_ready, scrub
from .jsondec import loads_bounded, own_text
from .long_ints import MAX_DIGITS
from .nesting import WALK_DEPTH, NestedTooDeep, nested_deeper_than, too_deep, walked_too_deep, within_depth
from .text_pieces import TextPieces, escaped_pieces  # (TextPieces: the name the middleware guide gave first)

__all__ = [
    "dumpb",
    "dumpb_parts",
    "dumpb_sent",
    "dumps",
    "dumps_parts",
    "dumps_within_depth",
    "joined",
    "plain",
    "string_texts",
    "texts",
]


class _Escaped:
    """A table's text block as the encoder meets it (``escaped_text.known_texts``): ``body``, the string's
    escaped text, is copied between its quotes as it is."""

    __slots__ = ("body",)

    def __init__(self, body: str) -> None:
        self.body = body


_ESCAPED_TEXT: Final = f"{__package__}.escaped_text"
_escaped_text: ModuleType | None = None
""":mod:`.escaped_text`, the module of a table's text block (:class:`~.escaped_text.KnownText`), once another
module has imported it (the result converters, at the first tool result), else None: the encoder never
imports it first (a module more at every server's start); until then no message can hold such a block. After,
the encoder looks for one in a message only while one is alive."""


def _tables() -> ModuleType:
    """:mod:`.escaped_text`, which another module has loaded (the caller checked ``sys.modules``): imported
    here, where the import graph shows the dependency, and kept, so that later messages find it at once."""
    global _escaped_text
    from . import escaped_text  # (loaded already, or being loaded by another thread: waits for it)

    _escaped_text = escaped_text
    return escaped_text


def plain(value: object, _depth: int = 0) -> Any:
    """``value`` with every :class:`Encoded` inside dicts and lists replaced by its Python value, and
    every :class:`TextPieces` by its string (for code that stores or reads a result with other JSON
    libraries). Other values are returned as they are; containers are copied only where something
    was replaced.

    Raises:
        NestedTooDeep: dicts and lists nested more than :data:`WALK_DEPTH` levels deep.
    """
    if isinstance(value, Encoded):
        return value.value
    if isinstance(value, TextPieces):
        return str(value)
    if isinstance(value, dict):
        if _depth >= WALK_DEPTH:
            raise walked_too_deep()
        items = {key: plain(item, _depth + 1) for key, item in value.items()}
        return value if all(items[key] is item for key, item in value.items()) else items
    if isinstance(value, list):
        if _depth >= WALK_DEPTH:
            raise walked_too_deep()
        listed = [plain(item, _depth + 1) for item in value]
        return value if all(a is b for a, b in zip(listed, value, strict=True)) else listed
    return value


# A spliced value is written first as a JSON string holding a marker no other text can hold (a
# random token per process), which is then replaced by its text (an Encoded's, quotes and all) or
# by the string's escaped text (a TextPieces' or a KnownText's, between the marker's quotes).
_MARK: Final = "nanohubmcp-encoded-" + os.urandom(16).hex() + "-"
_pending = threading.local()


def _splice_mark(value: object) -> Any:
    if isinstance(value, Encoded):
        spliced: str | TextPieces | _Escaped = value.text
    elif isinstance(value, (TextPieces, _Escaped)):
        spliced = value
    else:
        return json_ready(value)
    texts = _pending.__dict__.setdefault("texts", [])
    texts.append(spliced)
    return f"{_MARK}{len(texts) - 1}"


def _spliced(out: str) -> str:
    """``out`` with each marker replaced by its text (only called when ``out`` holds one)."""
    return "".join(part if isinstance(part, str) else _encode_string(str(part))[1:-1] for part in _split(out))


def _forget() -> None:
    """Drop the texts of an encoding that failed half-way."""
    _pending.__dict__.pop("texts", None)


_fast_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_splice_mark)
"""The checking writer: a cycle raises ValueError (used when the one-time writer below failed)."""
_fast_chunks = compact_chunks(_splice_mark, allow_nan=False)
"""The one-time writer (no cycle check): its chunks joined where a message is written, no call between."""


def dumps(value: object) -> str:
    """Serialise ``value`` as compact, strictly valid JSON text (NaN/Infinity become null;
    an :class:`Encoded` is written as its text, a :class:`TextPieces` as its string).

    Raises:
        TypeError: ``value`` holds something JSON cannot represent (a set, an object).
        ValueError: ``value`` contains itself (a circular reference), or holds an int of more than 4,300
            digits (a :class:`~.long_ints.LongInteger`, whatever ``PYTHONINTMAXSTRDIGITS`` says).
        NestedTooDeep: ``value`` nests so deeply that the writer would pass Python's recursion limit
            (about 1000 levels; a ValueError); callers that hold values to :data:`~.nesting.MAX_JSON_DEPTH`
            check the text (:func:`nested_deeper_than`).
    """
    out = _marked(value)
    return _spliced(out) if _MARK in out else out


def dumps_parts(value: object) -> list[str]:
    """:func:`dumps`'s text as the parts it is made of, in order: each :class:`Encoded` text is a
    part of its own, never copied into one string with the rest (hash or send a large pre-encoded
    array piece by piece); a :class:`TextPieces`' escaped string is one too, read whole.
    ``"".join(dumps_parts(v)) == dumps(v)``.

    Raises:
        TypeError, ValueError, NestedTooDeep: as :func:`dumps`.
    """
    return [part if isinstance(part, str) else _encode_string(str(part))[1:-1] for part in _parts(value)]


def _parts(value: object) -> list[str | TextPieces]:
    """:func:`dumps_parts`, with each :class:`TextPieces` a part of its own (its text, quotes left out)."""
    out = _marked(value)
    return _split(out) if _MARK in out else [out]


def _split(out: str) -> list[str | TextPieces]:
    """``out`` (holding a marker) cut at its markers, each replaced by its text: an :class:`Encoded`'s
    (quotes and all), a :class:`~.escaped_text.KnownText`'s escaped text or a :class:`TextPieces`
    (between the quotes)."""
    texts: list[str | TextPieces | _Escaped] = _pending.__dict__.pop("texts", [])
    parts: list[str | TextPieces] = []
    for index, text in enumerate(texts):
        if isinstance(text, str):
            before, _, out = out.partition(f'"{_MARK}{index}"')
            parts += [before, text]
        else:  # the quotes stay in the text around it (the closing one told marker 1 from marker 10)
            before, _, out = out.partition(f'{_MARK}{index}"')
            out = '"' + out
            parts += [before, text.body if isinstance(text, _Escaped) else text]
    parts.append(out)
    return parts


def _marked(value: object) -> str:
    """The text of ``value`` with a marker where each :class:`Encoded` text goes (the texts pending);
    raises as :func:`dumps`."""
    tables = _escaped_text
    if tables is None and _ESCAPED_TEXT in sys.modules:  # (imported with the result converters, never at start)
        tables = _tables()
    if tables is not None and tables.alive:
        value = tables.known_texts(value, _Escaped)
    try:
        try:
            out = "".join(_fast_chunks(value, 0))
        except RecursionError:  # a cycle (ValueError from the checking writer) or a value nested too deep
            _forget()
            try:
                out = _fast_encoder.encode(value)
            except RecursionError:
                raise NestedTooDeep(
                    "the value is nested too deeply to be written as JSON (arrays and objects)") from None
    except NestedTooDeep:
        _forget()
        raise
    except ValueError as exc:
        _forget()
        if "integer string conversion" in str(exc):  # Python's own limit: its words name a knob that would not help
            raise long_ints.unwritten() from None
        if "Out of range float" not in str(exc):
            raise  # e.g. a circular reference: scrubbing would recurse for ever
        # allow_nan=False refused NaN/Infinity: only then pay for a scrubbing copy.
        try:
            out = _fast_encoder.encode(scrub(value))
        except BaseException:
            _forget()
            raise
    except BaseException:
        _forget()
        raise
    if len(out) > MAX_DIGITS and long_ints.unguarded_written(out):  # (a short text holds no such number)
        _no_long_integers(out)
    return out


def _no_long_integers(out: str) -> None:
    """Raise :class:`~.long_ints.LongInteger` when ``out`` holds an integer of more than 4,300 digits, which
    Python wrote because the process lifted its own limit (a number of more digits in a string is text: only
    a run where a number may stand, ``long_ints.unguarded_written``'s, has the text read again to tell)."""
    try:
        loads_bounded(out)
    except long_ints.LongInteger:
        _forget()
        raise long_ints.unwritten() from None


_ascii_encoder = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=json_ready)


def dumpb(value: object) -> bytes:
    """:func:`dumps`, UTF-8 encoded.

    Text holding a lone surrogate (``"\\ud800"``, which a client may send and a tool echo) has no
    UTF-8 form; it is then written with ``\\u`` escapes, which JSON allows.
    """
    text = dumps(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _escaped(value)


def dumpb_parts(value: object, *, echoes: bool = True) -> list[bytes | TextPieces]:
    """:func:`dumpb`'s bytes as the parts of :func:`dumps_parts`, each UTF-8 encoded (send a large
    pre-encoded array without first copying it into one text with the rest, then into bytes); a
    :class:`TextPieces` stays a part of its own, standing for :func:`escaped_pieces`' bytes
    (:attr:`~TextPieces.size` of them). The bytes between are then :func:`dumpb`'s exactly.

    These are the bytes a transport sends: a message whose text has no UTF-8 form (a lone surrogate) is
    one part, read whole (a :class:`TextPieces` in it too), each lone surrogate in text the server wrote
    being U+FFFD (:mod:`.lone_surrogates`); one that stays (in a request id, an error or a progress token,
    which echo the client's) has the message written with ``\\u`` escapes, as :func:`dumpb` writes it.
    ``echoes=False`` says no member echoes the client (a REST answer of a tool's): all its text is the
    server's. A surrogate pair is written as its character.

    .. versionchanged:: 1.0
       A lone surrogate in a result or a notification's params is written as U+FFFD, not as its escape.
    """
    parts = _parts(value)
    try:
        return [part.encode("utf-8") if isinstance(part, str) else part for part in parts]
    except UnicodeEncodeError:  # (only then: the usual message pays nothing for the check)
        from . import lone_surrogates  # (only text with no UTF-8 form comes here: not loaded at start)

        return [dumpb(lone_surrogates.for_the_wire(_read_back(parts), echoes=echoes))]


def _read_back(parts: list[str | TextPieces]) -> Any:
    """The JSON values of the text ``parts`` make up, as a client reads them: an array a middleware put into a
    message is then its lists (the converter's), whose text :mod:`.lone_surrogates` looks into too.

    Raises:
        NestedTooDeep: nested more than :data:`WALK_DEPTH` levels (as :func:`plain`: that module's walk recurses).
    """
    text = "".join(part if isinstance(part, str) else _encode_string(str(part))[1:-1] for part in parts)
    if nested_deeper_than(text, WALK_DEPTH):
        raise walked_too_deep()
    return own_text.decode(text)


def dumpb_sent(value: object) -> bytes:
    """:func:`dumpb_parts` joined: the bytes a transport sends for ``value`` (a kept file's text read whole)."""
    return joined(dumpb_parts(value))


def joined(parts: Iterable[bytes | TextPieces]) -> bytes:
    """Parts as :func:`dumpb_parts` makes them, as one text's bytes (a :class:`TextPieces` read whole)."""
    return b"".join(part if isinstance(part, bytes) else b"".join(escaped_pieces(part)) for part in parts)


def _escaped(value: object) -> bytes:
    return _ascii_encoder.encode(scrub(plain(value))).encode("ascii")


def texts(values: list[Any]) -> list[str]:
    """Each value's JSON text, as :func:`dumps` writes it (text through the C string writer, other
    values one by one).

    Raises:
        TypeError: as :func:`dumps`, for a value JSON cannot hold.
    """
    if all(type(value) is str for value in values):
        return string_texts(values)
    return [_encode_string(value) if type(value) is str else dumps(value) for value in values]


def string_texts(values: list[str]) -> list[str]:
    """Each string's JSON text, as :func:`dumps` writes it (``values`` holds only ``str``)."""
    return list(map(_encode_string, values))


_encode_string: Final = json.encoder.encode_basestring  # what _fast_encoder writes a str with


def dumps_within_depth(value: object, what: str, *, around: int = 0) -> str:
    """:func:`dumps` of ``value``, held to :data:`~.nesting.MAX_JSON_DEPTH` as :func:`within_depth` says
    (an :class:`Encoded` value is its text: its maker vouches for it, as for its spelling).

    Raises:
        TypeError, ValueError: as :func:`dumps`.
        NestedTooDeep: the value (``what``) nests more than :data:`~.nesting.MAX_JSON_DEPTH` levels deep.
    """
    if type(value) is Encoded:
        return value.text
    try:
        text = dumps(value)
    except NestedTooDeep:  # past what the writer can go: the same limit, said the same way
        raise too_deep(what) from None
    return within_depth(text, what, around=around)


measure_data_with(dumps)  # a JSON-RPC error's data is measured (and cut) as this writer writes it: errors.sent_text
