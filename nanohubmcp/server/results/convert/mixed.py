"""A list or dict that mixes pictures with data: the pictures as content blocks, the data beside them.

A tool that plots often returns the plot together with the numbers behind it: ``[fig, values]``,
``(fig, "caption", df)``, ``{"plot": fig, "data": df}``. Such a value is split in two:

- **pieces**: what becomes content blocks of its own, in order — matplotlib figures/axes and PIL
  images (each a PNG ``image`` block; figures are closed after drawing), content objects
  (``Image``, ``TextContent``, …), and, in a top-level list, strings (text blocks) and bytes;
  bytes in a top-level list are a piece whether or not a picture is there too (``["cap", {"n": 1},
  png]`` is split as ``[fig, "cap", {"n": 1}]`` is): JSON has no form for them. Bytes deeper inside the
  data, or a dict's value, have none either: the data's writer names them (``$['png'] is a bytes``);
- **data**: everything else, JSON-ready (arrays as nested lists, frames as records). In a list the
  data items keep their order (one item alone stands for itself); in a dict every key is kept and a
  picture's (or ``Image``'s) place holds the text ``"<image: content[N]>"`` naming its block, another
  piece's ``"<content[N]>"``.

The caller turns the data into the JSON text block and ``structuredContent`` exactly as for a plain
value (MCP 2025-11-25, Server § Tools § Structured content), so a text-only client still gets all of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....protocol.blocks import ImageContent
from ....protocol.content import is_content
from ....protocol.media import Image
from .kinds import library

__all__ = ["Split", "holds_piece", "is_picture", "places_of", "split"]

PICTURE_LIBRARIES = ("matplotlib", "PIL")
MAX_DEPTH = 50
LEAF_TYPES = frozenset({int, float, str, bool, type(None)})
"""Exact types that are never a piece and hold nothing: a container of only these is skipped in one C pass."""
BYTES = (bytes, bytearray, memoryview)
"""What is a piece as an item of a top-level list (an image, audio or file block), as well as pictures and content."""


def is_picture(value: object) -> bool:
    """True for a matplotlib figure/axes or a PIL image (recognised by module; nothing imported)."""
    return library(value) in PICTURE_LIBRARIES


def _makes_image(value: object) -> bool:
    """Whether the piece ``value`` becomes an ``image`` block (a figure, a PIL image, an ``Image``, an
    ``ImageContent``, a wire ``{"type": "image", ...}``): its place is named ``"<image: content[N]>"``, as
    the block's own name is in a list (:mod:`..named_blocks`)."""
    if is_picture(value) or isinstance(value, (Image, ImageContent)):
        return True
    return isinstance(value, Mapping) and value.get("type") == "image"


def _is_piece(value: object) -> bool:
    return is_picture(value) or is_content(value)


class Split:
    """The pieces (content to render, in order) and the data of a mixed value."""

    __slots__ = ("data", "has_data", "in_place", "pieces")

    def __init__(self) -> None:
        self.pieces: list[Any] = []
        self.data: Any = None
        self.has_data = False
        self.in_place: list[tuple[int | None, Any]] | None = None
        """For a list: each item in order, ``(i, None)`` for a piece (``pieces[i]``: a picture met
        inside an earlier data item comes before it), ``(None, its data)`` for data."""

    def places(self) -> list[int | str] | None:
        """For a list: where each item is found in the result made of it (the pieces' blocks first,
        then the data as a plain value's: a dict as its own structured content, anything else
        ``{"result": ...}``): ``i`` for a piece, its block ``content[i]``; for a data item the JSON
        pointer (RFC 6901) of its data in that structured content — ``""`` a lone dict,
        ``"/result"`` a lone other item, ``"/result/k"`` the k-th of several. None for a dict."""
        if self.in_place is None:
            return None
        data = [item for index, item in self.in_place if index is None]
        if len(data) == 1:  # (a dict is its own structured content: its "result" key is its own)
            lone = "" if isinstance(data[0], dict) else "/result"
            return [lone if index is None else index for index, _ in self.in_place]
        pointers = iter(f"/result/{k}" for k in range(len(data)))
        return [next(pointers) if index is None else index for index, _ in self.in_place]

    def _place(self, value: object, depth: int) -> Any:
        """``value`` with every picture inside it moved to ``pieces`` and a placeholder left behind."""
        if _is_piece(value):
            self.pieces.append(value)
            index = len(self.pieces) - 1
            return f"<image: content[{index}]>" if _makes_image(value) else f"<content[{index}]>"
        if depth >= MAX_DEPTH:
            return value
        if isinstance(value, dict):
            return {key: self._place(item, depth + 1) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._place(item, depth + 1) for item in value]
        return value


def _items_hold_piece(items: Any, depth: int, *, top: bool = False) -> bool:
    """True when one of ``items`` (a list, tuple or dict's values at ``depth``) is or holds a piece
    (``top``: the items of a top-level list, where bytes are a piece too).

    The item types are gathered in one C pass first: a list of a million numbers is answered
    without a Python step per number (it was ~0.5 s on the event loop).
    """
    if set(map(type, items)) <= LEAF_TYPES:
        return False
    return any(
        (top and isinstance(item, BYTES)) or _holds_piece(item, depth) for item in items if type(item) not in LEAF_TYPES
    )


def _holds_piece(value: object, depth: int = 0) -> bool:
    if _is_piece(value):
        return True
    if depth >= MAX_DEPTH:
        return False
    if isinstance(value, dict):
        return _items_hold_piece(value.values(), depth + 1)
    if isinstance(value, (list, tuple)):
        return _items_hold_piece(value, depth + 1)
    return False


def holds_piece(value: list[Any] | tuple[Any, ...] | dict[Any, Any]) -> bool:
    """Whether :func:`split` splits ``value`` (it holds a picture or content object, or, a list, bytes among
    its items), answered without copying anything (a walk that stops at the first piece)."""
    if isinstance(value, dict):
        return _holds_piece(value)
    return _items_hold_piece(value, 0, top=True)


def split(value: list[Any] | dict[str, Any]) -> Split | None:
    """Split a list or dict holding pictures or content among data (a list: or bytes); None when it holds none.

    A top-level list whose items are all pieces, strings or bytes has no data (``has_data`` False): each item
    is a block of its own; this is for lists and dicts that also carry data.
    """
    if not holds_piece(value):
        return None
    if isinstance(value, dict):
        parts = Split()
        parts.data = parts._place(value, 0)
        parts.has_data = True
        return parts
    parts = Split()
    data: list[Any] = []
    parts.in_place = []
    for item in value:
        if _is_piece(item) or isinstance(item, (str, *BYTES)):
            parts.in_place.append((len(parts.pieces), None))
            parts.pieces.append(item)
        else:
            data.append(parts._place(item, 1))
            parts.in_place.append((None, data[-1]))
    if data:
        parts.data = data[0] if len(data) == 1 else data
        parts.has_data = True
    return parts


def places_of(value: object) -> list[int | str] | None:
    """Where each item of ``value``, a list (or tuple) mixing blocks with data, is found in the result a
    tool's value is made into without an output schema or REST's ``data_only`` (:meth:`Split.places`):
    ``[fig, "cap", {"n": 1}]`` -> ``[0, 1, ""]`` (blocks 0 and 1, then the structured content itself).
    None for any other value. A job keeps it (``Job.item_places``) so that its poll answers what a REST
    call answers (:func:`~nanohubmcp.server.results.named_blocks.in_place`)."""
    if not isinstance(value, (list, tuple)) or set(map(type, value)) <= LEAF_TYPES:
        return None
    parts = split(list(value) if isinstance(value, tuple) else value)
    return parts.places() if parts is not None and parts.has_data else None
