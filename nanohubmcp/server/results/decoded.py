"""A result with the values the server wrote ahead as JSON turned into plain JSON values, for the
application's middleware.

To spare writing large data twice, a result may hold values that are not plain Python data where
the server puts them: ``structuredContent`` (or one of its members, ``"result"``) as a
:class:`~nanohubmcp.protocol.encoded.Encoded` (an array's or a table's JSON text, written once), and a
``resources/read`` block's ``text`` as a :class:`~nanohubmcp.protocol.text_pieces.TextPieces` (a kept file
read a piece at a time; the pipeline sees that none reaches the application's middleware unless all
of it was added with ``stream_kept_text=True``, and this reads one that would). The encoder writes
both; a middleware doing ``json.dumps(result)``, ``len``, ``isinstance(..., list)`` or changing the
data in place needs lists, dicts and strs.
:func:`decoded` turns those places (and only those: no walk over the data) into plain values.
No I/O but a :class:`TextPieces`' reading; imports nothing but those two stand-ins' modules.
"""

from __future__ import annotations

from typing import Any

from ...protocol.encoded import Encoded
from ...protocol.text_pieces import TextPieces

__all__ = ["decoded"]


def decoded(result: dict[str, Any], *, texts: bool = True) -> dict[str, Any]:
    """``result`` (a JSON-RPC ``result`` member) with each :class:`Encoded` in ``structuredContent``,
    or as one of its members, decoded anew (the caller may change it: no ``Encoded`` shares it), and
    each :class:`TextPieces` ``text`` of a block of a read's ``contents`` read into a ``str`` (and closed;
    a tool's ``content`` never holds one). Copies only the dicts and lists on the way to a value
    replaced; returns ``result`` itself when nothing is (a result without such values: a few checks).
    ``texts=False`` leaves the :class:`TextPieces` as they are (middleware that asked for them).

    Exact: the decoded values are what the encoder wrote, so :func:`~nanohubmcp.protocol.jsonenc.dumps`
    writes the same text for them (orjson's array text is Python's to the byte).

    Raises:
        OSError: reading a :class:`TextPieces` (a kept file) failed.
    """
    out = result
    structured = result.get("structuredContent")
    if isinstance(structured, Encoded):
        out = {**result, "structuredContent": structured.copy_value()}
    elif structured.__class__ is dict:
        for item in structured.values():
            if isinstance(item, Encoded):
                out = {**result, "structuredContent": _members(structured)}
                break
    contents = result.get("contents") if texts else None
    if contents.__class__ is list:
        for block in contents:
            if block.__class__ is dict and isinstance(block.get("text"), TextPieces):
                out = {**out, "contents": [_block(each) for each in contents]}
                break
    return out


def _members(structured: dict[str, Any]) -> dict[str, Any]:
    return {key: value.copy_value() if isinstance(value, Encoded) else value for key, value in structured.items()}


def _block(block: object) -> object:
    if isinstance(block, dict):
        text = block.get("text")
        if isinstance(text, TextPieces):
            try:
                return {**block, "text": str(text)}
            finally:
                text.close()
    return block
