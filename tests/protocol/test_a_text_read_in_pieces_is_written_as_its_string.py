"""A :class:`~nanohubmcp.protocol.text_pieces.TextPieces` (a kept file's text) is written as the string it
stands for: :func:`dumps` and :func:`dumpb` give the same bytes as for the ``str``, and
:func:`dumpb_parts` leaves it a part of its own whose :func:`escaped_pieces` are the bytes between its
quotes, :attr:`size` of them, the parts around it the encoder's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from nanohubmcp.protocol import jsonenc, text_pieces
from nanohubmcp.protocol.encoded import Encoded

TEXTS = ['a "quoted" \\ back\tslash\n\x00\x1f\x7f é € 😀 \u2028', "", "plain ascii [1.0,2.5]", "😀" * 5]


class Pieces(text_pieces.TextPieces):
    """A text given as its pieces (the file's reads, cut anywhere between characters)."""

    def __init__(self, text: str, width: int) -> None:
        self.text = text
        self.width = width
        self.size = text_pieces.escaped_size(self.pieces())

    def pieces(self) -> Iterator[str]:
        for start in range(0, len(self.text), self.width):
            yield self.text[start : start + self.width]


def as_strings(value: Any) -> Any:
    if isinstance(value, Pieces):
        return value.text
    if isinstance(value, dict):
        return {key: as_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_strings(item) for item in value]
    return value


def streamed(value: Any) -> bytes:
    """What a writer sending :func:`dumpb_parts` a piece at a time sends."""
    out = b""
    for part in jsonenc.dumpb_parts(value):
        out += part if isinstance(part, bytes) else b"".join(text_pieces.escaped_pieces(part))
    return out


def bodies(text: str, width: int) -> list[Any]:
    many = {f"k{i}": Pieces(text, width) for i in range(12)}  # marker 1 and marker 10 told apart
    return [
        {"jsonrpc": "2.0", "id": 1, "result": {"contents": [{"uri": "u", "mimeType": "text/plain",
                                                             "text": Pieces(text, width)}]}},
        [Pieces(text, width), Encoded("[1,2.5]"), "x", Pieces(text[::-1], width)],
        {"nan": float("nan"), "text": Pieces(text, width)},  # the writer's second pass (NaN as null)
        many,
    ]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("width", [1, 2, 7, 1000])
def test_every_writer_writes_the_pieces_as_the_string(text: str, width: int) -> None:
    for body in bodies(text, width):
        plain = as_strings(body)
        assert jsonenc.dumps(body) == jsonenc.dumps(plain)
        assert jsonenc.dumpb(body) == jsonenc.dumpb(plain)
        assert "".join(jsonenc.dumps_parts(body)) == jsonenc.dumps(plain)
        assert streamed(body) == jsonenc.dumpb(plain)
        assert jsonenc.dumps(jsonenc.plain(body)) == jsonenc.dumps(plain)  # (plain: the strings themselves)
        for part in jsonenc.dumpb_parts(body):
            if not isinstance(part, bytes):
                assert part.size == sum(map(len, text_pieces.escaped_pieces(part)))


def test_pieces_read_as_their_string() -> None:
    pieces = Pieces(TEXTS[0], 3)
    assert str(pieces) == TEXTS[0]
    assert pieces == TEXTS[0]
    assert pieces == Pieces(TEXTS[0], 5)
    assert pieces != TEXTS[0] + "x"
    assert pieces != 5
    assert jsonenc.plain({"text": [pieces]}) == {"text": [TEXTS[0]]}
    assert type(jsonenc.plain(pieces)) is str
    assert repr(pieces) == f"<Pieces of {pieces.size} bytes of JSON text>"


def test_a_body_with_no_utf8_form_is_one_part_escaped_as_dumpb_writes_it() -> None:
    body = {"id": "\ud800", "text": Pieces(TEXTS[0], 4)}
    parts = jsonenc.dumpb_parts(body)
    assert parts == [jsonenc.dumpb({"id": "\ud800", "text": TEXTS[0]})]
    assert isinstance(parts[0], bytes)
    assert parts[0].isascii()
