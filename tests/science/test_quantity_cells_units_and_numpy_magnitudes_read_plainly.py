"""Quantities in a table, a pint Unit alone and a numpy-scalar magnitude read as numbers and short units (trial63
F4, F5, F6).

Before: a DataFrame with Quantity cells (pint-pandas absent: object cells) was refused ("a table cell holds a
pint.Quantity ..., which has no JSON form"); ``q.units`` reached the model as pint's LaTeX,
``$\\mathrm{millielectron\\_volt}$``; ``np.float32(1.5) * ureg.eV`` and a 0-d array Quantity read as an array summary
("numpy array, shape (), ..."). Now a column whose Quantities share their units holds their magnitudes and is named
with the units (``"gap [eV]"``: records, summary and CSV), any other Quantity cell is its text (``"660 meV"``); a Unit
is its short text (``meV``), as a str returned; a numpy scalar or 0-d magnitude reads ``1.5 eV``.
"""

from __future__ import annotations

import anyio
import pytest
from json_posts import post_json
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
pint = pytest.importorskip("pint")

ureg = pint.UnitRegistry()


def build() -> MCPServer:
    server = MCPServer("cells", provenance=False)

    @server.tool()
    def gaps() -> pd.DataFrame:
        """Band gaps, one unit in the column, one cell empty."""
        return pd.DataFrame({"mat": ["Si", "Ge", "C"], "gap": [1.12 * ureg.eV, 0.66 * ureg.eV, None]})

    @server.tool()
    def mixed_units() -> pd.DataFrame:
        """Quantities of two units in one column, one beside a plain number."""
        return pd.DataFrame({"gap": [1.12 * ureg.eV, 660 * ureg.meV], "other": [2.0 * ureg.K, 3]})

    @server.tool()
    def gap_series() -> object:
        """A Series of Quantities of one unit, and an Index of them."""
        return {"series": pd.Series([1.12 * ureg.eV, 0.66 * ureg.eV], name="gap"),
                "index": pd.Index([1.12 * ureg.eV, 0.66 * ureg.eV])}

    @server.tool()
    def unit() -> object:
        """The units of a Quantity."""
        return (3 * ureg.meV).units

    @server.tool()
    def units_inside() -> dict:
        """Units inside a dict."""
        return {"energy": ureg.meV, "acceleration": (ureg.m / ureg.s**2)}

    @server.tool()
    def float32_gap() -> object:
        """A numpy float32 magnitude."""
        return np.float32(1.5) * ureg.eV

    @server.tool()
    def zero_d_gap() -> object:
        """A 0-d array magnitude."""
        return ureg.Quantity(np.array(2.5), "eV")

    @server.resource("cells://gaps")
    def table() -> pd.DataFrame:
        """The gaps as CSV."""
        return pd.DataFrame({"gap": [1.12 * ureg.eV, 0.66 * ureg.eV]})

    @server.resource("cells://unit")
    def unit_resource() -> object:
        """A unit, as a resource."""
        return ureg.meV

    return server


def test_a_column_of_one_unit_holds_magnitudes_named_with_the_units() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("gaps")
        [csv] = client.read_resource("cells://gaps")
    assert not result["isError"], result
    assert result["structuredContent"] == {"result": [
        {"index": 0, "mat": "Si", "gap [eV]": 1.12}, {"index": 1, "mat": "Ge", "gap [eV]": 0.66},
        {"index": 2, "mat": "C", "gap [eV]": None}]}
    summary = result["content"][0]["text"]
    assert "gap [eV]" in summary, summary
    assert "1.12" in summary, summary
    assert "electron_volt" not in summary, summary
    assert csv["mimeType"] == "text/csv"
    assert csv["text"].splitlines() == [",gap [eV]", "0,1.12", "1,0.66"]


def test_quantities_of_several_units_or_beside_other_values_are_their_text() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("mixed_units")
    assert not result["isError"], result
    assert result["structuredContent"] == {"result": [
        {"index": 0, "gap": "1.12 eV", "other": "2.0 K"}, {"index": 1, "gap": "660 meV", "other": 3}]}


def test_a_series_takes_the_rule_of_a_column_and_an_index_s_quantities_are_their_text() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("gap_series")
    assert not result["isError"], result
    assert result["structuredContent"] == {
        "series": [{"index": 0, "gap [eV]": 1.12}, {"index": 1, "gap [eV]": 0.66}],
        "index": ["1.12 eV", "0.66 eV"],
    }


def test_a_unit_is_its_short_text_never_latex() -> None:
    with in_memory(build()) as client:
        alone = client.call_tool("unit")
        inside = client.call_tool("units_inside")
        [read] = client.read_resource("cells://unit")
    assert alone["content"] == [{"type": "text", "text": "meV"}], alone
    assert inside["structuredContent"] == {"energy": "meV", "acceleration": "m / s ** 2"}
    assert (read["mimeType"], read["text"]) == ("text/plain", "meV")


def test_a_numpy_scalar_or_0_d_magnitude_reads_as_its_number() -> None:
    with in_memory(build()) as client:
        float32 = client.call_tool("float32_gap")
        zero_d = client.call_tool("zero_d_gap")
    assert float32["content"][0]["text"] == "1.5 eV"
    assert float32["structuredContent"] == {"magnitude": 1.5, "units": "eV"}
    assert zero_d["content"][0]["text"] == "2.5 eV"
    assert zero_d["structuredContent"] == {"magnitude": 2.5, "units": "eV"}


@pytest.mark.anyio
async def test_the_table_and_the_unit_reach_the_official_client_and_rest() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            table = await client.call_tool("gaps", {})
            unit = await client.call_tool("unit", {})
        rest = await anyio.to_thread.run_sync(post_json, url + "tools/unit", {})
    assert not table.is_error, table.content
    assert table.structured_content["result"][0] == {"index": 0, "mat": "Si", "gap [eV]": 1.12}
    assert [block.text for block in unit.content] == ["meV"]
    assert rest == (200, {"result": "meV"})
