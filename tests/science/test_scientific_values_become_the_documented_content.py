"""One test per row of the table of scientific return values in docs/how-to/scientific-results.md
(``results.tool_result``)."""

from __future__ import annotations

import base64
import dataclasses
import io
import json
from pathlib import Path

import pytest

from nanohubmcp.server.results import shape as results
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.sink import ResultSink
from nanohubmcp.server.results.store import ResultStore

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
PIL = pytest.importorskip("PIL.Image")
display = pytest.importorskip("IPython.display")


def texts(result: dict) -> list[str]:
    return [b["text"] for b in result["content"] if b["type"] == "text"]


def png_size(block: dict) -> tuple[int, int]:
    assert block["type"] == "image"
    assert block["mimeType"] == "image/png"
    with PIL.open(io.BytesIO(base64.b64decode(block["data"]))) as image:
        return image.size


def test_numpy_scalars_are_json_numbers_and_booleans() -> None:
    assert texts(results.tool_result(np.float32(0.5))) == ["0.5"]
    assert texts(results.tool_result(np.int16(7))) == ["7"]
    assert texts(results.tool_result(np.bool_(True))) == ["true"]
    assert texts(results.tool_result(np.float64("nan"))) == ["NaN"]  # text keeps it; JSON data has null


def test_an_array_is_nested_lists_with_a_summary_and_its_json() -> None:
    a = np.array([[1.0, np.nan], [np.inf, -2.5]])
    result = results.tool_result(a)
    assert result["structuredContent"] == {"result": [[1.0, None], [None, -2.5]]}
    summary, payload = texts(result)
    assert "shape (2, 2)" in summary
    assert "float64" in summary
    assert "2 not finite" in summary
    assert json.loads(payload) == result["structuredContent"]


def test_array_elements_take_their_documented_forms() -> None:
    def data(value: object) -> object:
        return results.tool_result(value)["structuredContent"]["result"]

    assert data(np.array([1 + 2j, 3 - 1j])) == [[1.0, 2.0], [3.0, -1.0]]
    assert data(np.array(["2026-01-02T03:04", "NaT"], dtype="datetime64[m]")) == ["2026-01-02T03:04", None]
    assert data(np.array([90, 30], dtype="timedelta64[s]")) == [90.0, 30.0]
    assert data(np.array([b"ab"])) == ["ab"]
    assert data(np.array([(1, 2.5)], dtype=[("n", "i4"), ("x", "f8")])) == [{"n": 1, "x": 2.5}]
    assert data(np.ma.array([1.0, 2.0, 3.0], mask=[False, True, False])) == [1.0, None, 3.0]
    assert data(np.zeros((2, 0, 3))) == [[], []]
    assert texts(results.tool_result(np.array(5))) == ["5"]  # a 0-d array is a scalar


def test_arrays_inside_lists_dicts_and_dataclasses_are_converted_in_place() -> None:
    @dataclasses.dataclass
    class Fit:
        params: object
        error: object

    assert results.tool_result({"x": np.arange(3), "mean": np.float64(1.0)})["structuredContent"] == {
        "x": [0, 1, 2],
        "mean": 1.0,
    }
    assert texts(results.tool_result([np.arange(2), np.arange(2) * 2])) == ["[[0,1],[0,2]]"]
    assert results.tool_result(Fit(np.array([1.5, 2.5]), np.float32(0.25)))["structuredContent"] == {
        "params": [1.5, 2.5],
        "error": 0.25,
    }


def test_a_dataframe_is_records_with_its_index_first_and_a_readable_table() -> None:
    frame = pd.DataFrame(
        {
            "when": pd.to_datetime(["2026-01-01", None]),
            "kind": pd.Categorical(["a", None]),
            "n": pd.array([1, None], dtype="Int64"),
            "x": [0.5, np.nan],
        },
        index=pd.Index([10, 20], name="run"),
    )
    result = results.tool_result(frame)
    assert result["structuredContent"] == {
        "result": [
            {"run": 10, "when": "2026-01-01T00:00:00", "kind": "a", "n": 1, "x": 0.5},
            {"run": 20, "when": None, "kind": None, "n": None, "x": None},
        ]
    }
    assert list(result["structuredContent"]["result"][0]) == ["run", "when", "kind", "n", "x"]
    table = texts(result)[0]
    assert "2 rows x 4 columns" in table
    assert "2026-01-01" in table


def test_an_unnamed_index_is_called_index_and_duplicate_columns_are_refused() -> None:
    assert results.tool_result(pd.DataFrame({"a": [1]}))["structuredContent"] == {"result": [{"index": 0, "a": 1}]}
    with pytest.raises(TypeError, match="more than one column named 'a'"):
        results.tool_result(pd.DataFrame([[1, 2]], columns=["a", "a"]))


def test_object_column_cells_take_the_array_forms_and_others_are_refused_by_name() -> None:
    frame = pd.DataFrame({"o": [b"xy", np.arange(2), {"k": np.float32(1.5)}]})
    assert [row["o"] for row in results.tool_result(frame)["structuredContent"]["result"]] == [
        "xy",
        [0, 1],
        {"k": 1.5},
    ]
    assert results.tool_result(pd.Series([b"ab"], name="raw"))["structuredContent"] == {
        "result": [{"index": 0, "raw": "ab"}]
    }
    with pytest.raises(TypeError, match=r"a table cell holds a builtins\.set \(\{1\}\), which has no JSON form"):
        results.tool_result(pd.DataFrame({"o": [1, {1}]}))


def test_a_decimal_cell_and_a_decimal_subclass_cell_become_their_text() -> None:
    import decimal

    class Money(decimal.Decimal):
        pass

    frame = pd.DataFrame({"o": [decimal.Decimal("1.50"), Money("2.25")]})
    assert [row["o"] for row in results.tool_result(frame)["structuredContent"]["result"]] == ["1.50", "2.25"]


def test_a_series_and_an_index_become_records_and_values() -> None:
    series = pd.Series([1.5, 2.5], index=["p", "q"], name="speed")
    assert results.tool_result(series)["structuredContent"] == {
        "result": [{"index": "p", "speed": 1.5}, {"index": "q", "speed": 2.5}]
    }
    assert results.tool_result(pd.Series([1]))["structuredContent"] == {"result": [{"index": 0, "value": 1}]}
    assert texts(results.tool_result(pd.Series([1, 2])))[0].startswith("pandas Series, 2 rows, dtype int64:\n")
    assert texts(results.tool_result(series))[0].startswith("pandas Series 'speed', 2 rows, dtype float64:\n")
    assert results.tool_result(pd.Index(["a", "b"]))["structuredContent"] == {"result": ["a", "b"]}
    assert results.tool_result(pd.date_range("2026-01-01", periods=1))["structuredContent"] == {
        "result": ["2026-01-01T00:00:00"]
    }


def test_pandas_scalars_are_plain_values_and_a_styler_is_its_html() -> None:
    assert texts(results.tool_result(pd.Timestamp("2026-01-01", tz="UTC"))) == ["2026-01-01T00:00:00+00:00"]
    assert texts(results.tool_result(pd.Timedelta("90s"))) == ["90.0"]
    assert results.tool_result(pd.NA)["content"] == []
    styled = results.tool_result(pd.DataFrame({"a": [1]}).style)["content"]
    assert styled[-1]["resource"]["mimeType"] == "text/html"


def test_a_figure_and_its_axes_become_pngs_of_the_figure_size_and_are_closed() -> None:
    fig, ax = plt.subplots(figsize=(4, 3), dpi=50)
    assert png_size(results.tool_result(ax)["content"][0]) == (200, 150)
    assert not plt.fignum_exists(fig.number)
    fig2 = plt.figure(figsize=(2, 1), dpi=100)
    sink = ResultSink(ResultOptions(figure_dpi=30))
    assert png_size(results.tool_result(fig2, sink=sink)["content"][0]) == (60, 30)


def test_a_list_of_figures_and_captions_is_one_block_each() -> None:
    figs = [plt.figure(figsize=(1, 1), dpi=20), plt.figure(figsize=(2, 1), dpi=20)]
    blocks = results.tool_result(["two plots", *figs])["content"]
    assert [b["type"] for b in blocks] == ["text", "image", "image"]
    assert png_size(blocks[2]) == (40, 20)


def test_a_pil_image_becomes_a_png_whatever_its_mode() -> None:
    assert png_size(results.tool_result(PIL.new("RGB", (7, 5)))["content"][0]) == (7, 5)
    assert png_size(results.tool_result(PIL.new("CMYK", (3, 2)))["content"][0]) == (3, 2)


class Rich:
    """An object offering a MIME bundle, as rich objects in notebooks do."""

    def __init__(self, bundle: dict) -> None:
        self.bundle = bundle

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        return self.bundle


PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 8).decode()


@pytest.mark.parametrize(
    ("bundle", "expected"),
    [
        ({"image/png": PNG, "text/html": "<b>x</b>", "text/plain": "x"}, [("image", "image/png")]),
        ({"image/svg+xml": "<svg/>", "text/plain": "x"}, [("resource", "image/svg+xml")]),
        ({"application/json": {"a": 1}, "text/markdown": "**a**"}, [("text", '{"a":1}')]),
        ({"text/markdown": "**a**", "text/latex": "$a$", "text/html": "<b>a</b>"}, [("text", "**a**")]),
        ({"text/latex": "$a$", "text/html": "<b>a</b>"}, [("text", "$a$")]),
        ({"text/html": "<b>a</b>", "text/plain": "a"}, [("text", "a"), ("resource", "text/html")]),
        ({"text/plain": "just text"}, [("text", "just text")]),
    ],
)
def test_the_display_protocol_takes_the_first_mime_type_in_the_documented_order(bundle: dict, expected: list) -> None:
    result = results.tool_result(Rich(bundle))
    got = []
    for block in result["content"]:
        if block["type"] == "text":
            got.append(("text", block["text"]))
        elif block["type"] == "image":
            got.append(("image", block["mimeType"]))
        else:
            got.append(("resource", block["resource"]["mimeType"]))
    assert got == expected
    if "application/json" in bundle:
        assert result["structuredContent"] == {"a": 1}


def test_ipython_display_objects_become_their_content() -> None:
    png = base64.b64decode(PNG)
    image = results.tool_result(display.Image(data=png, format="png"))["content"]
    assert image[0]["type"] == "image"
    assert base64.b64decode(image[0]["data"]) == png
    assert results.tool_result(display.HTML("<i>hi</i>"))["content"][-1]["resource"] == {
        "uri": "nanohubmcp://result",
        "mimeType": "text/html",
        "text": "<i>hi</i>",
    }
    assert texts(results.tool_result(display.Markdown("# Title"))) == ["# Title"]
    assert "x^2" in texts(results.tool_result(display.Math("x^2")))[0]
    assert results.tool_result(display.JSON({"k": [1, 2]}))["structuredContent"] == {"k": [1, 2]}
    svg = results.tool_result(display.SVG('<svg xmlns="http://www.w3.org/2000/svg"/>'))["content"][0]
    assert svg["resource"]["mimeType"] == "image/svg+xml"


def test_a_library_object_with_no_mcp_form_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"numpy\.ufunc, which has no MCP form; return a numpy array"):
        results.tool_result(np.add)


def test_results_over_max_inline_bytes_become_a_link_and_a_preview() -> None:
    store = ResultStore(ttl=60)
    sink = ResultSink(ResultOptions(max_inline_bytes=100), store, owner="session:a")
    result = results.tool_result(np.arange(1000), sink=sink)
    note, link = result["content"]
    assert "structuredContent" not in result
    assert "1000 values" in note["text"]
    assert "max_inline_bytes (100)" in note["text"]
    assert link["type"] == "resource_link"
    assert link["mimeType"] == "application/json"
    read = store.read(link["uri"], "session:a")
    assert json.loads(read["contents"][0]["text"]) == list(range(1000))
    assert store.read(link["uri"], "session:b") is None
    plain = results.tool_result({"values": list(range(100))}, sink=sink)
    assert plain["content"][1]["type"] == "resource_link"
    assert json.loads(store.read(plain["content"][1]["uri"], "session:a")["contents"][0]["text"]) == {
        "values": list(range(100))
    }


def test_an_output_schema_keeps_the_result_inline() -> None:
    sink = ResultSink(ResultOptions(max_inline_bytes=10), ResultStore(ttl=60))
    result = results.tool_result(np.arange(50), output_schema={"type": "object"}, sink=sink)
    assert result["structuredContent"] == {"result": list(range(50))}


def test_before_2025_06_18_the_json_text_still_carries_all_the_data() -> None:
    result = results.tool_result(np.arange(3), version="2025-03-26")
    assert "structuredContent" not in result
    assert json.loads(texts(result)[-1]) == {"result": [0, 1, 2]}


def test_kept_results_are_files_in_the_state_directory_that_a_new_process_still_reads(tmp_path: Path) -> None:
    def store() -> ResultStore:
        return ResultStore(ttl=60, directory=lambda: str(tmp_path))

    sink = ResultSink(ResultOptions(max_inline_bytes=10), store(), owner="principal:ada")
    link = results.tool_result(np.arange(100), sink=sink)["content"][-1]
    figure_link = results.tool_result(PIL.new("RGB", (400, 300)), sink=sink)["content"][0]  # its own place
    kept = sorted(p.name for p in (tmp_path / "results").iterdir() if p.name != ".lock")  # (the folder's lock)
    assert len(kept) == 4  # two data files and their .meta.json
    other = store()  # another process of the same server, opened before the results were kept
    assert other.read("nanohubmcp://results/none", None) is None
    later = store()  # as after a restart
    assert json.loads(later.read(link["uri"], "principal:ada")["contents"][0]["text"]) == list(range(100))
    png = later.read(figure_link["uri"], "principal:ada")["contents"][0]
    assert png["mimeType"] == "image/png"
    assert base64.b64decode(png["blob"]).startswith(b"\x89PNG")
    assert later.read(link["uri"], "principal:bob") is None
    made_after = results.tool_result(np.arange(50), sink=sink)["content"][-1]["uri"]
    assert json.loads(other.read(made_after, "principal:ada")["contents"][0]["text"]) == list(range(50))
    assert later.read(link["uri"].replace("results/", "results/../"), "principal:ada") is None
    expired = ResultStore(ttl=-1, directory=lambda: str(tmp_path))
    gone = results.tool_result(np.arange(100), sink=ResultSink(ResultOptions(max_inline_bytes=10), expired))
    assert expired.read(gone["content"][-1]["uri"], None) is None
    assert len([p for p in (tmp_path / "results").iterdir() if p.name != ".lock"]) == 6  # the expired one was removed


def test_a_resource_function_may_return_an_array_a_table_or_a_figure() -> None:
    array = results.resource_contents(np.arange(3) / 2, uri="data://a")
    assert array == [{"uri": "data://a", "mimeType": "application/json", "text": "[0.0,0.5,1.0]"}]
    table = results.resource_contents(pd.DataFrame({"x": [1]}), uri="data://t")
    assert table == [{"uri": "data://t", "mimeType": "text/csv", "text": ",x\n0,1\n"}]
    picture = results.resource_contents(plt.figure(figsize=(1, 1), dpi=10), uri="data://p")[0]
    assert picture["mimeType"] == "image/png"
    assert base64.b64decode(picture["blob"]).startswith(b"\x89PNG")


def test_the_store_is_bounded_in_total_and_per_owner() -> None:
    store = ResultStore(ttl=60, max_bytes=1000, max_bytes_per_owner=400)
    first = store.keep("a" * 300, "text/plain", ".txt", "session:a")
    second = store.keep("b" * 300, "text/plain", ".txt", "session:a")  # a's own oldest makes room
    assert store.read(first, "session:a") is None
    assert store.read(second, "session:a") is not None
    others = [store.keep("c" * 300, "text/plain", ".txt", f"session:{i}") for i in range(3)]
    assert store.read(second, "session:a") is None  # the oldest overall made room
    assert all(store.read(uri, f"session:{i}") is not None for i, uri in enumerate(others))
    with pytest.raises(ValueError, match="more than the server keeps for large results"):
        store.keep("d" * 1001, "text/plain", ".txt", "session:a")
