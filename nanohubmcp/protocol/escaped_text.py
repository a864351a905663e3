"""A table's text block, escaped while its records are joined: text whose JSON string form is already written.

A tool that returns a table gets a text block holding the table's records as JSON text, and that text
is itself written as a JSON string on the wire, so every quote in it is escaped again. The result converter
(``server.results.convert.frames``) writes both forms at once, while it joins the records, and hands the
text over as a :class:`KnownText`: a ``str`` that also carries its escaped form. The encoder
(``protocol.jsonenc``) copies that form where the block's text stands, instead of escaping the text a
second time (for a large table, the escaping cost more than writing the table).

This module owns that string, the count of those alive (the encoder looks for one only while there is
one: :data:`alive`) and where in a message one is copied from (:func:`known_texts`: a block's ``text`` in
a result's ``content``). It writes no JSON and imports nothing of the package: ``protocol.jsonenc`` does
the writing, and finds this module once something imported it (the result converters, at a server's first
tool result; never at start, which is why the encoder does not import it itself).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final

__all__ = ["KnownText", "alive", "known_texts", "wrapped"]

alive = 0
""":class:`KnownText` strings made and not yet freed: only while there is one does the encoder look for one
in the message (a few checks every message would pay otherwise). Off under threads, it costs speed only."""


class KnownText(str):
    """A ``str`` whose JSON string text is already written: ``escaped`` is what ``jsonenc.dumps`` writes
    between its quotes. Where it is a text block's ``text`` in a result's ``content`` (the message's
    ``result``, or the value itself), ``jsonenc.dumps``, ``dumpb`` and ``dumpb_parts`` copy ``escaped``
    instead of escaping the string again; anywhere else it is written as any ``str``. Every reader sees a
    ``str``; a copy or a pickle of it is a plain ``str``. Made by the result converters; the caller
    vouches that ``escaped`` is the string's JSON text, quotes left out.
    """

    escaped: str | None

    def __new__(cls, text: str, escaped: str) -> KnownText:
        global alive
        made = super().__new__(cls, text)
        made.escaped = escaped
        alive += 1
        return made

    def __del__(self) -> None:
        global alive
        alive -= 1

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (str.__str__(self),)


def wrapped(prefix: str, text: str, suffix: str) -> str:
    """``prefix + text + suffix``; when ``text`` is a :class:`KnownText`, one whose escaped text is made
    from ``text``'s (which ``text`` then gives up: a large one is not held twice).

    Example:
        ``wrapped('{"result":', KnownText('"a"', '\\"a\\"'), "}").escaped == '{\\"result\\":\\"a\\"}'``
    """
    joined = "".join((prefix, text, suffix))
    if type(text) is not KnownText or text.escaped is None:
        return joined
    escaped, text.escaped = text.escaped, None
    return KnownText(joined, "".join((_escape(prefix), escaped, _escape(suffix))))


def _escape(text: str) -> str:
    return _encode_string(text)[1:-1]


_encode_string: Final = json.encoder.encode_basestring  # the C string writer jsonenc writes a str with


def known_texts(value: object, spliced: Callable[[str], object]) -> object:
    """``value`` with each :class:`KnownText` ``text`` of a block in ``content`` (of its ``result``, or of
    itself) replaced by ``spliced(text.escaped)`` (what the encoder copies between the string's quotes),
    the dicts and list on the way copied; ``value`` itself when none is."""
    if value.__class__ is not dict:
        return value
    result = value.get("result", value)
    content = result.get("content") if result.__class__ is dict else None
    if content.__class__ is not list or not any(_known(block) for block in content):
        return value
    blocks = [{**block, "text": spliced(block["text"].escaped)} if _known(block) else block for block in content]
    result = {**result, "content": blocks}
    return result if "result" not in value else {**value, "result": result}


def _known(block: object) -> bool:
    return block.__class__ is dict and block.get("text").__class__ is KnownText and block["text"].escaped is not None
