"""A record's result text (and its digest and resource links) is the same whether orjson writes it (the ``fast``
extra: :mod:`nanohubmcp.server.provenance.result_fast`) or the long way (the wire's encoder): for the
commonest result, one text block, and for the values orjson spells otherwise or refuses (a float below 1e-4, an
integer beyond 64 bits, a lone surrogate, a subclass, a date, pre-encoded data), which go the long way."""

from __future__ import annotations

import datetime
import enum
import uuid
from typing import Any

import pytest

from nanohubmcp.protocol.accelerator import accelerator, use_accelerator
from nanohubmcp.protocol.encoded import Encoded
from nanohubmcp.server.provenance import result_fast
from nanohubmcp.server.provenance.result_text import MAX_KEPT_RESULT_BYTES, kept_and_digest, resource_links


class Level(enum.IntEnum):
    HIGH = 3


class Word(str, enum.Enum):
    YES = "yes"


class Text(str):
    pass


def text_block(text: str, failed: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": failed}


def structured(value: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "see structuredContent"}], "structuredContent": {"result": value},
            "isError": False}


FLOATS = [1e-05, 1.5e-07, -9.99e-05, 1e-4, 0.0, -0.0, 1e16, 1.5e300, 5e-324, 1e-10, 2.5, float("nan"),
          float("inf")]
RESULTS: list[dict[str, Any]] = [
    text_block("3.75"),
    text_block("3.75", failed=True),
    text_block('say "hi"\\ \n\t\r\x01\x1f\x7f end'),
    text_block("".join(map(chr, range(0x800))) + "\u2028\u2029\ufeff\U0001f600"),
    text_block("a re-run of 1e-5 at 0.00001 (text, not numbers)"),
    text_block("x" * (MAX_KEPT_RESULT_BYTES + 10)),
    text_block("\ud800 a lone surrogate"),
    text_block(Text("a str subclass")),
    {"isError": False, "content": [{"text": "keys in another order", "type": "text"}]},
    {"content": [{"type": "resource_link", "uri": "file:///a", "name": "a"},
                 {"type": "resource", "resource": {"uri": "file:///b", "text": "b"}}], "isError": False},
    *[structured(value) for value in FLOATS],
    structured([1, 2.0, {"x": None, "y": True}, (3, 4)]),
    structured({"long": 2**63 - 1, "unsigned": 2**64 - 1, "negative": -(2**63)}),
    structured(2**64),
    structured({1: "a key JSON writes as a string"}),
    structured(Level.HIGH),
    structured(Word.YES),
    structured(uuid.UUID(int=5)),
    structured(datetime.datetime(2026, 12, 7)),
    structured(Encoded([1.5, 2.5])),
    structured([[[["deep"]]]] * 3),
    {"content": [], "isError": False},
]


@pytest.mark.parametrize("result", RESULTS)
@pytest.mark.parametrize("used", [True, False], ids=["orjson", "standard library"])
def test_orjson_gives_the_long_ways_text_digest_and_links(result: dict[str, Any], used: bool) -> None:
    before = (result_fast._dumps, result_fast._options, result_fast._looked)
    use_accelerator(used)
    result_fast._looked = False  # (looked up again, as at a process's first record)
    try:
        fast = result_fast.orjson_kept(result)
    finally:
        use_accelerator(True)
        result_fast._dumps, result_fast._options, result_fast._looked = before
    if fast is None:  # (the long way)
        assert not used or result is not RESULTS[0] or accelerator() is None
        return
    assert fast == (*kept_and_digest(result), resource_links(result))


def test_the_commonest_results_are_written_by_orjson_when_it_is_installed() -> None:
    if accelerator() is None:
        pytest.skip("orjson (the fast extra) is not installed")
    for result in (text_block("3.75"), text_block("no", failed=True), structured([1, 2.5, "x"]), RESULTS[9]):
        assert result_fast.orjson_kept(result) is not None, result

