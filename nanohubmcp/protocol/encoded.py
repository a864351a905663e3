"""A JSON value written once as text and carried as that text (:class:`Encoded`), read as its value on demand.

Large data (an array's or a table's values) is written once as JSON text by the result converters. The
encoder (``protocol.jsonenc``) copies that text into every message that holds it, so the same text can be
both a tool result's text block and its ``structuredContent`` without being decoded and written again; code
that reads the data sees the value (decoded on first use, by :data:`~.jsondec.own_text`).

This module owns that stand-in and :func:`is_object` (whether a result's structured content is an object,
told from the text without decoding it). It writes no JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from .jsondec import own_text

__all__ = ["Encoded", "is_object"]


class Encoded:
    """A JSON value already written as compact, strict JSON text (as ``jsonenc.dumps`` writes it).

    ``jsonenc.dumps``/``dumpb`` write ``text`` verbatim where the value stands; ``value`` is the
    Python value it reads as (decoded on first use, then kept), for code that reads the data. An
    ``Encoded`` equals its value (``Encoded("[1]") == [1]``). Made by the result converters; the
    caller vouches that ``text`` is what ``jsonenc.dumps`` writes for the value; one who has the value too
    may give it (``value``: then never decoded), vouching that it is not changed after.
    """

    __slots__ = ("_value", "text")

    def __init__(self, text: str, value: object = None) -> None:
        self.text: Final = text
        self._value: Any = _UNREAD if value is None else value

    @property
    def value(self) -> Any:
        """The Python value of ``text`` (decoded once)."""
        if self._value is _UNREAD:
            # our own strict output: the C decoder alone (no per-number check as for client input)
            self._value = own_text.decode(self.text)
        return self._value

    def copy_value(self) -> Any:
        """The Python value of ``text`` decoded anew, every call: the caller's to change (``value``
        is decoded once and shared by every reader of this ``Encoded``; it is not kept here)."""
        return own_text.decode(self.text)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Encoded):
            return self.text == other.text or self.value == other.value
        return bool(self.value == other)

    __hash__ = None  # type: ignore[assignment]  # equal to its (unhashable) value

    # read like the value it encodes (``x["result"][0]``); code that needs the value's own type
    # (another JSON library, isinstance checks) uses ``jsonenc.plain()`` or ``.value``
    def __getitem__(self, key: Any) -> Any:
        return self.value[key]

    def __len__(self) -> int:
        return len(self.value)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.value)

    def __contains__(self, item: object) -> bool:
        return item in self.value

    def __reduce__(self) -> tuple[type[Encoded], tuple[str]]:
        return Encoded, (self.text,)  # copies and pickles: the text (the value is read again)

    def __repr__(self) -> str:
        shown = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return f"Encoded({shown!r})"


_UNREAD: Final = object()


def is_object(structured: object) -> bool:
    """Whether ``structured`` (a result's ``structuredContent``) is a JSON object: a dict, or an
    :class:`Encoded` object's text (a large dict result's, written once)."""
    return isinstance(structured, dict) or (isinstance(structured, Encoded) and structured.text[:1] == "{")
