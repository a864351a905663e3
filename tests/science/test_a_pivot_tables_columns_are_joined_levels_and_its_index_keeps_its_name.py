"""A DataFrame with MultiIndex columns (a pivot table): record keys are the levels joined by ``|`` and the index
column keeps its own name (trial62 F10: it was ``"T|"``, the empty level pandas' ``reset_index()`` adds joined on)."""

from __future__ import annotations

import json

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

pd = pytest.importorskip("pandas")

GAPS = pd.DataFrame({"T": [300, 300, 400], "mat": ["Si", "Ge", "Si"], "gap": [1.12, 0.66, 1.10]})


def test_a_pivot_tables_records_name_the_index_and_join_the_column_levels() -> None:
    server = MCPServer("pivot")

    @server.tool()
    def pivot() -> object:
        """Band gaps by temperature and material."""
        return GAPS.pivot(index="T", columns="mat")

    @server.tool()
    def three_levels() -> object:
        """Columns of three levels, some ending empty."""
        columns = pd.MultiIndex.from_tuples([("a", "x", ""), ("a", "", "z"), ("b", "", "")])
        return pd.DataFrame([[1, 2, 3]], columns=columns)

    with in_memory(server) as client:
        result = client.call_tool("pivot")
        levels = client.call_tool("three_levels")
    assert not result["isError"], result
    assert result["structuredContent"] == {"result": [
        {"T": 300, "gap|Ge": 0.66, "gap|Si": 1.12},
        {"T": 400, "gap|Ge": None, "gap|Si": 1.10},
    ]}
    assert json.loads(result["content"][-1]["text"]) == result["structuredContent"]
    assert levels["structuredContent"] == {"result": [{"index": 0, "a|x": 1, "a||z": 2, "b": 3}]}
