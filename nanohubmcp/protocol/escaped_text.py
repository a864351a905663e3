"""A tool result's text block that repeats its data's JSON text: text whose JSON string form is found by two replaces.

A tool that returns a table or an array gets a text block holding its data as JSON text (``{"result":...}``),
and that text is itself written as a JSON string on the wire, so every quote in it is escaped again. The
data's text is JSON text as ``protocol.jsonenc`` writes it, vouched for as such by its maker (it is
``structuredContent``'s ``encoded.Encoded`` too): it holds no raw control character (the encoder writes
those inside strings as escapes, and nothing else outside them), so its string form is the text with each
backslash and each quote escaped, which ``str.replace`` finds without the C string writer's look at every
character. :func:`wrapped` makes the block's text and that form at once and hands them over as a
:class:`KnownText`: a ``str`` that also carries its escaped form. The encoder copies that form where the
block's text stands, instead of escaping the text a second time (for a large table, the escaping cost more
than writing the table).

This module owns that string, the ones alive (the encoder looks for one only while there is one:
:data:`alive`) and where in a message one is copied from (:func:`known_texts`: a block's ``text`` in
a result's ``content``). It writes no JSON and imports nothing of the package: ``protocol.jsonenc`` does
the writing, and imports this module only once something else has (the result converters, at a server's
first tool result; never at start).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

__all__ = ["KnownText", "alive", "json_text_escaped", "known_texts", "wrapped"]

alive: Final[list[None]] = []
"""One entry per :class:`KnownText` made and not yet freed: only while it is not empty does the encoder look
for one in a message (a few checks every message would pay otherwise).

Exact under threads: each ``KnownText`` is made and freed on whichever thread holds it (a worker's, the
loop's, the garbage collector's), and ``list.append``/``list.pop`` are each one step no other thread comes
between, where ``count += 1`` is a read and a write another thread's ``-= 1`` may fall between (on an
interpreter without the GIL). A count left below the truth would stop the encoder looking for good (every
table's text block then escaped a second time: slower, the same bytes); one left above, every message would
pay the look. A ``KnownText`` is written as the ``str`` it is wherever the encoder does not look, so the bytes
never depend on this list; only the time does."""


class KnownText(str):
    """A ``str`` whose JSON string text is already written: ``escaped`` is what ``jsonenc.dumps`` writes
    between its quotes. Where it is a text block's ``text`` in a result's ``content`` (the message's
    ``result``, or the value itself), ``jsonenc.dumps``, ``dumpb`` and ``dumpb_parts`` copy ``escaped``
    instead of escaping the string again; anywhere else it is written as any ``str``. Every reader sees a
    ``str``; a copy or a pickle of it is a plain ``str``. Made by :func:`wrapped`; the caller vouches that
    ``escaped`` is the string's JSON text, quotes left out.
    """

    escaped: str

    def __new__(cls, text: str, escaped: str) -> KnownText:
        made = super().__new__(cls, text)
        alive.append(None)  # (before anything else can fail: its __del__ runs whenever it is freed)
        made.escaped = escaped
        return made

    def __del__(self) -> None:
        alive.pop()

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (str.__str__(self),)


def wrapped(prefix: str, text: str, suffix: str) -> str:
    """``prefix + text + suffix``, JSON text as ``jsonenc.dumps`` writes it (the caller vouches for all
    three together, e.g. ``'{"result":'``, an ``Encoded``'s text and ``"}"``): a :class:`KnownText`
    carrying its escaped form, or the plain string when ``text`` holds no quote and no backslash (an
    array's numbers: the encoder escapes the wrapper's few quotes as it writes the string).

    Example:
        ``wrapped('{"result":', '"a"', "}").escaped == '{\\"result\\":\\"a\\"}'``
    """
    joined = "".join((prefix, text, suffix))
    if '"' not in text and "\\" not in text:  # (C's search for a character: no copy, no look at each)
        return joined
    return KnownText(joined, json_text_escaped(joined))


def json_text_escaped(text: str) -> str:
    """The JSON string form of ``text``, quotes left out, where ``text`` is JSON text as ``jsonenc.dumps``
    writes it (what the C string writer writes for it, byte for byte): each backslash and each quote escaped.

    Such text holds no raw control character, the only other characters a JSON string escapes (``dumps``
    writes them inside strings as escapes, and compact JSON has no whitespace between values).
    """
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    return text.replace('"', '\\"')


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
    return block.__class__ is dict and block.get("text").__class__ is KnownText
