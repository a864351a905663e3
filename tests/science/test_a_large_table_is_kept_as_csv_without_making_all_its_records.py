"""Issue 19: a DataFrame over ``max_inline_bytes`` is kept as CSV, decided without making all its records.

``frames.longer_than`` encodes the rows in growing chunks; its answer must be exactly what encoding
all the records says, and the tool result on either side of the limit must be what it always was.
"""

from __future__ import annotations

import pytest

from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.results import shape as results
from nanohubmcp.server.results.convert import frames, jsonable
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.sink import ResultSink
from nanohubmcp.server.results.store import ResultStore

pd = pytest.importorskip("pandas")
np = pytest.importorskip("numpy")

ROWS = 3500  # chunks of 1000, 2000 and part of 4000 rows


def mixed() -> object:
    n = np.arange(ROWS)
    when = pd.Series(pd.date_range("2026-01-01", periods=ROWS, freq="h"))
    when[n % 7 == 0] = pd.NaT
    return pd.DataFrame(
        {
            "n": n,
            "x": np.where(n % 5 == 0, np.nan, n / 3),
            "when": when.to_numpy(),
            "label": [f"r{i}" for i in n],
            "kind": pd.Categorical(np.where(n % 2 == 0, "even", "odd")),
        },
        index=pd.Index(n * 10, name="run"),
    )


def full_json(frame: object) -> str:
    return jsonenc.dumps({"result": results.tool_result(frame)["structuredContent"]["result"]})


def test_the_chunked_length_check_agrees_with_the_whole_json_text() -> None:
    frame = mixed()
    size = len(full_json(frame))
    for limit in (0, 10, 5000, size // 2, size - 1, size, size + 1, 10 * size):
        assert frames.longer_than(frame, jsonable, limit) is (size > limit), limit
    series = frame["x"]
    series_size = len(jsonenc.dumps({"result": results.tool_result(series)["structuredContent"]["result"]}))
    for limit in (series_size - 1, series_size):
        assert frames.longer_than(series, jsonable, limit) is (series_size > limit)
    assert frames.longer_than(frame.iloc[:0], jsonable, len('{"result":[]}')) is False


def test_on_either_side_of_the_limit_the_result_is_the_records_or_the_csv() -> None:
    frame = mixed()
    text = full_json(frame)
    store = ResultStore(ttl=60)
    inline = results.tool_result(frame, sink=ResultSink(ResultOptions(max_inline_bytes=len(text)), store, "s"))
    assert inline["structuredContent"] == results.tool_result(frame)["structuredContent"]
    assert inline["content"][-1]["text"] == text
    first = inline["structuredContent"]["result"][0]
    assert first == {"run": 0, "n": 0, "x": None, "when": None, "label": "r0", "kind": "even"}
    assert inline["structuredContent"]["result"][1]["when"] == "2026-01-01T01:00:00"
    kept = results.tool_result(frame, sink=ResultSink(ResultOptions(max_inline_bytes=len(text) - 1), store, "s"))
    assert "structuredContent" not in kept
    link = kept["content"][-1]
    assert link["mimeType"] == "text/csv"
    assert store.read(link["uri"], "s")["contents"][0]["text"] == frame.to_csv()


def test_a_kept_table_with_duplicate_columns_is_still_refused() -> None:
    frame = pd.DataFrame(np.zeros((5000, 2)), columns=["a", "a"])
    sink = ResultSink(ResultOptions(max_inline_bytes=100), ResultStore(ttl=60), "s")
    with pytest.raises(TypeError, match="more than one column named 'a'"):
        results.tool_result(frame, sink=sink)
