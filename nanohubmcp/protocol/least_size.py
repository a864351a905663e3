"""The fewest bytes a value's JSON takes, told without writing it (:func:`least_bytes`).

To refuse a value over a bound need not cost writing all of it: a string takes at least a byte a character and
its two quotes, a list of ``n`` items at least ``2n + 1`` bytes, an object of ``n`` members ``5n + 1``
(``"":0`` and a comma each), a pre-written text (an :class:`~.encoded.Encoded`) its length, a kept file's text
(a :class:`~.text_pieces.TextPieces`) the size counted when it was opened. The walk looks only at the first few
levels and the members of small containers (at most :data:`STEPS` values a level, whatever the value's size);
below that a value counts as one byte. This module writes no JSON and imports only those two stand-ins' modules.
"""

from __future__ import annotations

from typing import Final

from .encoded import Encoded
from .text_pieces import TextPieces

__all__ = ["least_bytes"]

DEPTH: Final = 4
"""How many levels of containers the walk enters (a tool result's text: result, content, block, text)."""
WIDTH: Final = 16
"""The most members of a container the walk enters; a larger one counts by its length alone."""
STEPS: Final = 64
"""The most values the walk enters on one level (past them, containers count by their length alone)."""


def least_bytes(value: object) -> int:
    """A lower bound of the bytes of ``value``'s JSON as UTF-8 (as ``jsonenc`` writes it: compact), found without
    writing it: at most :data:`STEPS` values a level, whatever ``value``'s size."""
    total = 0
    level: list[object] = [value]
    for depth in range(DEPTH + 1):
        deeper: list[object] = []
        for item in level:
            kind = type(item)
            if kind is str:
                total += len(item) + 2  # type: ignore[arg-type]  # (a str)
            elif kind is dict or kind is list:
                count = len(item)  # type: ignore[arg-type]  # (a dict or a list)
                # brackets, commas and a byte at least for each item; a key's quotes and colon
                total += 2 * count + 1 + (3 * count if kind is dict else 0)
                if depth < DEPTH and 0 < count <= WIDTH and len(deeper) + count <= STEPS:
                    deeper.extend(item.values() if kind is dict else item)  # type: ignore[attr-defined,arg-type]
                    total -= count  # (each item counted as it is entered)
            elif kind in _SCALARS:
                total += 1
            else:
                total += _other(item)
        level = deeper
    return total


_SCALARS: Final = frozenset({bool, int, float, type(None)})


def _other(item: object) -> int:
    """The least bytes of a value neither a plain str, dict nor list (a number, a literal, a subclass of those, a
    pre-written text, a kept file's text)."""
    if isinstance(item, str):
        return len(item) + 2
    if isinstance(item, (dict, list)):
        return 2 * len(item) + 1 + (3 * len(item) if isinstance(item, dict) else 0)
    if isinstance(item, Encoded):
        return len(item.text)
    if isinstance(item, TextPieces):
        return item.size + 2
    return 1
