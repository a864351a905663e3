"""Parameters annotated ``np.ndarray``, ``pd.DataFrame`` and ``pd.Series`` get a schema and arrive converted."""

from __future__ import annotations

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
npt = pytest.importorskip("numpy.typing")


def build() -> MCPServer:
    server = MCPServer("science-args")

    @server.tool()
    def describe(a: np.ndarray, table: pd.DataFrame, s: pd.Series, d: npt.NDArray[np.float64]) -> dict:
        """Say what arrived."""
        return {
            "a": [type(a).__name__, list(a.shape), str(a.dtype), bool(np.isnan(a).any())],
            "table": [type(table).__name__, list(table.columns), float(table["x"].sum())],
            "s": [type(s).__name__, float(s.sum())],
            "d": [type(d).__name__, float(d.sum())],
        }

    @server.tool()
    def as_text(a: "np.ndarray") -> str:  # noqa: UP037 - a string annotation, resolved from this module
        """A string annotation works too."""
        return type(a).__name__

    return server


@pytest.mark.anyio
async def test_arrays_and_tables_arrive_as_numpy_and_pandas_objects() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            result = await client.call_tool(
                "describe",
                {
                    "a": [[1, 2], [3, None]],
                    "table": [{"x": 1.5, "y": "a"}, {"x": 2.5, "y": "b"}],
                    "s": [1, 2, 3],
                    "d": [0.5, 0.25],
                },
            )
            text = await client.call_tool("as_text", {"a": [1, 2]})
            ragged = await client.call_tool("as_text", {"a": [[1, 2], [3]]})
    schema = tools["describe"].input_schema["properties"]
    assert schema["a"]["type"] == "array"
    assert schema["table"] == {
        "type": "array",
        "items": {"type": "object"},
        "description": "a table: one object per row, column name to value",
    }
    assert tools["as_text"].input_schema["properties"]["a"]["type"] == "array"
    assert result.structured_content == {
        "a": ["ndarray", [2, 2], "float64", True],
        "table": ["DataFrame", ["x", "y"], 4.0],
        "s": ["Series", 6.0],
        "d": ["ndarray", 0.75],
    }
    assert text.content[0].text == "ndarray"
    assert ragged.is_error
    assert "arguments.a" in ragged.content[0].text
    assert "rectangular" in ragged.content[0].text


@pytest.mark.anyio
async def test_an_array_takes_numbers_at_every_depth() -> None:
    # A fresh-user trial: the schema's items say "number, array or null" for the first level only, and
    # numpy.asarray made a string array of [["10", "9"]] (the tool then failed inside numpy, or answered a
    # wrong result) and an integer one of [[1, true]].
    refused = {
        "strings": ({"a": [["10", "9"]]}, 'arguments.a[0][0]: "10" is not a number'),
        "a string deeper": ({"a": [[[1.0], ["x"]]]}, 'arguments.a[0][1][0]: "x" is not a number'),
        "booleans": ({"a": [[True, False]]}, "arguments.a[0][0]: true is not a number"),
        "a boolean among numbers": ({"a": [[1, 2], [3, True]]}, "arguments.a[1][1]: true is not a number"),
        "an object": ({"a": [[{"v": 1}]]}, 'arguments.a[0][0]: {"v": 1} is not a number'),
        "beyond a float": ({"a": [[10**400, None]]}, "arguments.a: is not a rectangular array of numbers"),
    }
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            answers = {case: await client.call_tool("as_text", args) for case, (args, _) in refused.items()}
            fine = await client.call_tool("as_text", {"a": [[[1, 2.5], [None, -3]]]})
    for case, (_, message) in refused.items():
        assert answers[case].is_error, case
        assert message in answers[case].content[0].text, (case, answers[case].content[0].text)
    assert fine.content[0].text == "ndarray"
