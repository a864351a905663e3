"""A table's text block (its records as JSON, inside a JSON string) is escaped once, where the block is
made (its backslashes and quotes replaced: JSON text holds no raw control character), not escaped again
by the response encoder: the bytes on the wire are the standard library's for the same values, with orjson
and without it, by every writer of a response."""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

from nanohubmcp.protocol import accelerator, jsonenc
from nanohubmcp.protocol.escaped_text import KnownText, json_text_escaped, wrapped
from nanohubmcp.server.results import shape as results
from nanohubmcp.server.results.convert import frames

N = 30
M = frames.JOIN_ROWS
TABLES = {
    "mixed": pd.DataFrame(
        {
            "t": np.linspace(-1e-6, 1e300, N),
            "i": np.arange(N),
            "text": ['x\u2028"é\\'] * N,
            "flag": [True, False] * (N // 2),
            "gaps": [None, 1.5, float("nan")] * (N // 3),
            "nested": [{"a": [1, 2e-9, 'q"']}, [1.5e-7], None] * (N // 3),
            "when": pd.date_range("2026-01-01", periods=N, freq="h", tz="UTC"),
            "label": pd.array(["p", None, "q"] * (N // 3), dtype="string"),
            'a\u0000%s"': np.arange(N) * 1e-6,
        },
        index=pd.RangeIndex(N, name="row"),
    ),
    "multiindex": pd.DataFrame(
        {"a": [1e-5, 2.0]}, index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)], names=["k", "n"])
    ),
    "empty": pd.DataFrame({"a": []}),
    "series": pd.Series([1e-9, np.nan, 2.5], name='v"'),
    "text only": pd.DataFrame({'k"\\': ["plain", 'q"uote', "back\\slash", "\u2028\x1f", "", "a,b"]}),
    "plain text": pd.DataFrame({"s": ["even", "odd"] * 3, "x": [0.5, 1e-7] * 3}),
    "joined in parts": pd.DataFrame(  # more rows than records_text joins at a time (JOIN_ROWS)
        {
            "x": np.linspace(-1e-6, 1e-3, 3 * M + 5),
            "i": np.arange(3 * M + 5),
            "s": ['q"', "\\", "é\u2028"] * (M + 1) + ["z", "y"],
            "o": [None, 1.5e-9, {"a": 'b"'}] * (M + 1) + [[], "w"],
        }
    ),
}


@pytest.fixture(params=[True, False], ids=["orjson", "stdlib"])
def accelerated(request: pytest.FixtureRequest) -> Iterator[bool]:
    assert accelerator.use_accelerator(request.param) is request.param
    try:
        yield request.param
    finally:
        accelerator.use_accelerator(True)


def standard(value: Any) -> Any:
    """``value`` as the standard library reads it: Encoded decoded, every str a plain str."""
    value = jsonenc.plain(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, dict):
        return {key: standard(item) for key, item in value.items()}
    if isinstance(value, list):
        return [standard(item) for item in value]
    return value


@pytest.mark.parametrize("name", TABLES)
def test_every_writer_sends_the_standard_librarys_bytes(name: str, accelerated: bool) -> None:
    result = results.tool_result(TABLES[name])
    block = result["content"][-1]["text"]
    if name != "empty":  # (an empty table's text is "[]")
        assert type(block) is KnownText
        assert block.escaped == json.encoder.encode_basestring(block)[1:-1]
    message = {"jsonrpc": "2.0", "id": 1, "result": result}
    expected = json.dumps(standard(message), separators=(",", ":"), ensure_ascii=False).encode()
    assert jsonenc.dumpb(message) == expected
    assert b"".join(part for part in jsonenc.dumpb_parts(message) if isinstance(part, bytes)) == expected
    assert jsonenc.dumpb(result) == json.dumps(standard(result), separators=(",", ":"), ensure_ascii=False).encode()


def test_the_known_escape_is_copied_only_for_a_block_text() -> None:
    known = KnownText('a"b', "KNOWN")  # an escape that is not the string's: shows which is written
    assert jsonenc.dumps({"result": {"content": [{"type": "text", "text": known}]}}) == (
        '{"result":{"content":[{"type":"text","text":"KNOWN"}]}}'
    )
    assert jsonenc.dumps({"content": [{"type": "text", "text": known}], "other": known}) == (
        '{"content":[{"type":"text","text":"KNOWN"}],"other":"a\\"b"}'
    )
    assert jsonenc.dumps([known]) == '["a\\"b"]'


def test_a_known_text_reads_copies_and_pickles_as_its_string() -> None:
    known = KnownText('a"b', 'a\\"b')
    assert known == 'a"b'
    assert isinstance(known, str)
    assert type(pickle.loads(pickle.dumps(known))) is str
    assert jsonenc.dumps({"content": [{"text": known}]}) == '{"content":[{"text":"a\\"b"}]}'


def test_a_wrapped_json_text_carries_the_c_string_writers_escape() -> None:
    for text in ['["a\\"b"]', '["\\\\","\\u001f","\u2028\u00e9"]', '{"k\\"":[1,null]}', '[1,2.5]', '"\ud800"']:
        whole = wrapped('{"result":', text, "}")
        assert whole == '{"result":' + text + "}"
        assert json.encoder.encode_basestring(whole) == f'"{escaped(whole)}"'
    assert type(wrapped("[", "1,2", "]")) is str  # nothing to escape in the data: the plain string
    assert type(wrapped("[", '"x"', "]")) is KnownText


def escaped(text: str) -> str:
    return text.escaped if isinstance(text, KnownText) else json_text_escaped(text)
