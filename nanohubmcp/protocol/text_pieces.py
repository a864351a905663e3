"""A JSON string value too large to hold whole (a kept result's file), read a piece at a time where it is sent.

:class:`TextPieces` stands for a ``str`` in a message. The encoder (``protocol.jsonenc``) writes it as that
string wherever it writes the message whole, and leaves it a part of its own where a transport sends the
message in parts (``jsonenc.dumpb_parts``); the transport then writes :func:`escaped_pieces` between the
string's quotes, one piece at a time, never holding the text whole. :func:`escaped_size` counts those bytes
beforehand, for the message's length.

This module owns that stand-in and the escaping of its pieces; it writes no message and imports nothing of
the package. A piece escapes alone as the whole string would: every JSON escape stands for one character.
``nanohubmcp.protocol.jsonenc.TextPieces``, the name the middleware guide gave first, is this class.
"""

from __future__ import annotations

import json.encoder
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import Final

__all__ = ["TextPieces", "escaped_pieces", "escaped_size"]

_encode_string: Final = json.encoder.encode_basestring  # the encoder's own writer of a str, quotes and all


class TextPieces(ABC):
    """A JSON string value read a piece at a time where it is written (a kept result's file): never
    held whole by a writer that sends it in pieces (``jsonenc.dumpb_parts``, :func:`escaped_pieces`).

    Every other writer, and any reader, sees the string it stands for: ``jsonenc.dumps`` and ``dumpb``
    write it as they write that ``str`` (the same bytes), ``str(pieces)`` is that string and
    ``jsonenc.plain`` turns it into it; it equals that string. Its maker gives :attr:`size`.
    """

    size: int
    """The bytes of the string's JSON text as UTF-8, the quotes left out: what :func:`escaped_pieces`
    yields in all (:func:`escaped_size` counts it)."""

    @abstractmethod
    def pieces(self) -> Iterator[str]:
        """The string, a piece at a time, from its start (each call starts again)."""

    def close(self) -> None:  # noqa: B027  (optional: most sources hold nothing to release)
        """Release what the pieces are read from (a file); the writer that sent them calls it."""

    def __str__(self) -> str:
        return "".join(self.pieces())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (str, TextPieces)):
            return str(self) == str(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a str, but not the same hash

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.size} bytes of JSON text>"


def escaped_pieces(text: TextPieces) -> Iterator[bytes]:
    """``text``'s JSON string as UTF-8 a piece at a time, the quotes left out: what ``jsonenc.dumpb``
    writes between them (each piece escaped as the encoder escapes a ``str``)."""
    for piece in text.pieces():
        yield _encode_string(piece)[1:-1].encode("utf-8")


def escaped_size(pieces: Iterable[str]) -> int:
    """The bytes of the JSON string ``"".join(pieces)`` as UTF-8, the quotes left out (a
    :class:`TextPieces`' :attr:`~TextPieces.size`), counted a piece at a time.

    Raises:
        UnicodeEncodeError: a piece holds a lone surrogate (no UTF-8 form): a body holding it is written
            with ``\\u`` escapes throughout, by ``jsonenc.dumpb``, not in pieces.
    """
    size = 0
    for piece in pieces:
        escaped = _encode_string(piece)
        size += (len(escaped) if escaped.isascii() else len(escaped.encode("utf-8"))) - 2
    return size
