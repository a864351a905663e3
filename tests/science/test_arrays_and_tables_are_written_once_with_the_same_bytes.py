"""An array's or a table's data is written as JSON text once, and that text is both the result's
text block and its ``structuredContent``: the bytes on the wire are the ones the records and lists
themselves would give, with orjson (the ``fast`` extra) and without it."""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

from nanohubmcp.protocol import accelerator, jsondec, jsonenc
from nanohubmcp.protocol.encoded import Encoded
from nanohubmcp.server.results import shape as results
from nanohubmcp.server.results.convert import arrays, frames, jsonable
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.sink import ResultSink
from nanohubmcp.server.results.store import ResultStore

RNG = np.random.default_rng(7)
# every exponent (tiny ones are where orjson's spelling and Python's differ: 1e-05 vs 0.00001)
SPREAD = RNG.standard_normal(4000) * 10.0 ** RNG.integers(-320, 300, 4000)
EDGES = np.array(
    [
        0.0,
        -0.0,
        1e-4,
        9.999999999999999e-05,
        1e-5,
        2.5e-7,
        5e-324,
        2.2250738585072014e-308,
        1e15,
        1e16,
        9999999999999998.0,
        1.7976931348623157e308,
        -1.5e-300,
        0.1,
        1 / 3,
        np.nan,
        np.inf,
        -np.inf,
    ]
)

ARRAYS = {
    "spread": SPREAD,
    "edges": EDGES,
    "float32": np.clip(SPREAD, -3e38, 3e38).astype(np.float32),
    "float16": np.array([0.1, 1e-5, 65504.0], dtype=np.float16),
    "int8": np.arange(-128, 128, dtype=np.int8),
    "uint64": np.array([0, 2**64 - 1], dtype=np.uint64),
    "int64": np.array([-(2**63), 2**63 - 1]),
    "bool": np.array([[True, False], [False, True]]),
    "2d": SPREAD[:120].reshape(12, 10),
    "3d tiny": (np.arange(24.0).reshape(2, 3, 4) - 3) * 1e-6,
    "big-endian": np.array([1.5, 1e-6]).astype(">f8"),
    "not contiguous": SPREAD[:200].reshape(20, 10).T,
    "empty": np.array([]),
    "empty 2d": np.zeros((0, 3)),
    "complex": np.array([1 + 2j, np.nan + 0j]),
    "datetime": np.array(["2026-01-01T10:00", "NaT"], dtype="datetime64[m]"),
    "masked": np.ma.masked_array([1.0, 1e-9], [0, 1]),
    "objects": np.array([1, "x", None, 2.5e-8], dtype=object),
    "text": np.array(["a", 'é"\\\n\u2028']),
}


def frame() -> pd.DataFrame:
    n = 60
    table = pd.DataFrame(
        {
            "t": SPREAD[:n],
            "i": np.arange(n),
            "text": ['x\u2028"é\\'] * n,
            "flag": [True, False] * (n // 2),
            "gaps": [None, 1.5, float("nan")] * (n // 3),
            "nested": [{"a": [1, 2e-9]}, [1.5e-7], None] * (n // 3),
            "when": pd.date_range("2026-01-01", periods=n, freq="h", tz="UTC"),
            "took": pd.to_timedelta(np.arange(n), unit="s"),
            "kind": pd.Categorical(["u", "v", "u"] * (n // 3)),
            "count": pd.array([1, None, 3] * (n // 3), dtype="Int64"),
            "label": pd.array(["p", None, "q"] * (n // 3), dtype="string"),
            "z": [1 + 1j] * n,
            "price": [decimal.Decimal("1.10")] * n,
            "f32": np.clip(SPREAD[:n], -3e38, 3e38).astype(np.float32),
            "day": [dt.date(2026, 1, 2)] * n,
            'a\u0000%s"': np.arange(n) * 1e-6,  # a name that needs escapes (and a % sign)
        },
        index=pd.RangeIndex(n, name="row"),
    )
    return table


FRAMES = {
    "mixed": frame(),
    "multiindex": pd.DataFrame(
        {"a": [1e-5, 2.0]}, index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)], names=["k", "n"])
    ),
    "multi columns": pd.DataFrame(
        np.arange(4.0).reshape(2, 2), columns=pd.MultiIndex.from_tuples([("a", "x"), ("a", "y")])
    ),
    "empty": pd.DataFrame({"a": []}),
    "one column": pd.DataFrame({"only": [1e-5, 3.0]}).set_index("only"),
    "series": pd.Series(SPREAD[:50], name="v"),
    "unnamed series": pd.Series([1e-9, np.nan]),
    "one row": pd.Series([1e-9]),
    "index": pd.Index([1.5e-6, 2.0]),
}


@pytest.fixture(params=[True, False], ids=["orjson", "stdlib"])
def accelerated(request: pytest.FixtureRequest) -> Iterator[bool]:
    assert accelerator.use_accelerator(request.param) is request.param  # orjson is in the test extra
    try:
        yield request.param
    finally:
        accelerator.use_accelerator(True)


@pytest.mark.parametrize("name", ARRAYS)
def test_an_arrays_text_is_the_text_of_its_lists(name: str, accelerated: bool) -> None:
    a = ARRAYS[name]
    assert arrays.to_text(a, jsonable) == jsonenc.dumps(arrays.to_lists(a, jsonable))


@pytest.mark.parametrize("name", FRAMES)
def test_a_tables_text_is_the_text_of_its_records(name: str, accelerated: bool) -> None:
    table = frames.to_records(FRAMES[name], jsonable)
    assert table is not None
    assert table.text() == jsonenc.dumps(table.records())


def wire(result: dict[str, Any]) -> bytes:
    return jsonenc.dumpb({"jsonrpc": "2.0", "id": 1, "result": result})


@pytest.mark.parametrize("name", ["spread", "3d tiny", "int8", "empty 2d", "mixed", "series", "index", "empty"])
@pytest.mark.parametrize("version", ["2025-11-25", "2025-03-26"])
def test_the_result_carries_one_text_as_text_block_and_structured_content(
    name: str, version: str, accelerated: bool
) -> None:
    value = {**ARRAYS, **FRAMES}[name]
    result = results.tool_result(value, version=version)
    data_text = result["content"][-1]["text"]
    if version == "2025-11-25":
        encoded = result["structuredContent"]["result"]
        assert type(encoded) is Encoded  # not decoded into Python values and written again
        assert data_text == f'{{"result":{encoded.text}}}'
        assert wire(result) == wire(jsonenc.plain(result))  # the bytes of the values themselves
        assert encoded == jsondec.loads(data_text)["result"]
    else:
        assert "structuredContent" not in result
    # a limit the data passes keeps all of it as the stored file instead (the JSON for an array)
    store = ResultStore(ttl=60)
    kept = results.tool_result(value, sink=ResultSink(ResultOptions(max_inline_bytes=len(data_text) - 1), store, "me"))
    link = kept["content"][-1]
    assert link["type"] == "resource_link"
    assert "structuredContent" not in kept
    stored = store.read(link["uri"], "me")
    if isinstance(value, np.ndarray):
        assert stored is not None
        assert stored["contents"][0]["text"] == data_text[len('{"result":') : -1]
