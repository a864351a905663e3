"""A Quantity of an ``unumpy.uarray`` is data, as a scalar Measurement is; a table's Quantity column renamed with its
units never takes another column's name; a column of pint Units is their short text (review r37 F10); and a
table's Quantity columns are made plain once per result, not again to measure it (N3).

Before: ``ureg.Quantity(unp.uarray([1, 2], [0.1, 0.2]), "eV")`` failed the call ("$['magnitude'][0] is a
Variable"); ``{"gap [eV]": [1.0], "gap": [2 * ureg.eV]}`` failed with "the DataFrame has more than one column named
'gap [eV]'" (a duplicate the user never wrote) and a ``"gap [eV]"`` column of eV Quantities became
``"gap [eV] [eV]"``; a column of ``ureg.meV`` failed ("a table cell holds a pint.Unit"); ``longer_than`` made the
columns plain a second time (0.2 s per million object cells).
"""

from __future__ import annotations

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.results import convert as conversions
from nanohubmcp.server.results.convert import frames
from nanohubmcp.testing import in_memory

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
pint = pytest.importorskip("pint")
unp = pytest.importorskip("uncertainties.unumpy", reason="the uarray case needs `pip install uncertainties`")

ureg = pint.UnitRegistry()


def build() -> MCPServer:
    server = MCPServer("uarrays", provenance=False)

    @server.tool()
    def gaps() -> object:
        """Band gaps with their uncertainties."""
        return ureg.Quantity(unp.uarray([1.12, 0.66], [0.01, 0.02]), "eV")

    @server.tool()
    def grid() -> object:
        """A 2-d array with uncertainties, one plain number and one NaN among them."""
        return ureg.Quantity(np.array([[unp.uarray([1.0], [0.5])[0], 2.0], [np.nan, 4.0]], dtype=object), "K")

    @server.tool()
    def named_twice() -> pd.DataFrame:
        """A plain column already named with units, and a Quantity column that would get that name."""
        return pd.DataFrame({"gap [eV]": [1.0], "gap": [2 * ureg.eV]})

    @server.tool()
    def named_already() -> pd.DataFrame:
        """A Quantity column already named with its units, beside one that would get that name."""
        return pd.DataFrame({"gap [eV]": [1 * ureg.eV], "gap": [2 * ureg.eV], "T": [300 * ureg.K]})

    @server.tool()
    def unit_cells() -> pd.DataFrame:
        """A column of units."""
        return pd.DataFrame({"u": [ureg.meV, ureg.eV]})

    @server.resource("uarrays://named")
    def named_csv() -> pd.DataFrame:
        """The collision as CSV."""
        return pd.DataFrame({"gap [eV]": [1.0], "gap": [2 * ureg.eV]})

    return server


def test_a_uarray_quantity_is_its_nominal_values_and_uncertainties() -> None:
    with in_memory(build()) as client:
        gaps = client.call_tool("gaps")
        grid = client.call_tool("grid")
    assert not gaps["isError"], gaps
    assert gaps["structuredContent"] == {"magnitude": [1.12, 0.66], "uncertainty": [0.01, 0.02], "units": "eV"}
    assert gaps["content"][0]["text"].startswith("pint Quantity in eV (electron_volt) with uncertainties"), gaps
    assert not grid["isError"], grid
    assert grid["structuredContent"] == {
        "magnitude": [[1.0, 2.0], [None, 4.0]], "uncertainty": [[0.5, 0.0], [None, 0.0]], "units": "K"}


def test_a_column_renamed_with_its_units_never_takes_another_columns_name() -> None:
    with in_memory(build()) as client:
        twice = client.call_tool("named_twice")
        already = client.call_tool("named_already")
        [csv] = client.read_resource("uarrays://named")
    assert not twice["isError"], twice
    assert twice["structuredContent"] == {"result": [{"index": 0, "gap [eV]": 1.0, "gap": "2 eV"}]}
    assert not already["isError"], already
    assert already["structuredContent"] == {"result": [{"index": 0, "gap [eV]": 1, "gap": "2 eV", "T [K]": 300}]}
    assert csv["text"].splitlines() == [",gap [eV],gap", "0,1.0,2 eV"]


@pytest.mark.anyio
async def test_a_column_of_units_is_their_short_text_for_the_official_client() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("unit_cells", {})
            gaps = await client.call_tool("gaps", {})
    assert not result.is_error, result.content
    assert result.structured_content == {"result": [{"index": 0, "u": "meV"}, {"index": 1, "u": "eV"}]}
    assert gaps.structured_content["uncertainty"] == [0.01, 0.02]


@pytest.mark.parametrize("shape", ["frame", "series"])
def test_a_tables_quantity_columns_are_made_plain_once_per_result(monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    calls: list[int] = []
    real = frames._units_in_columns

    def counted(frame: object, nested: object) -> object:
        calls.append(1)
        return real(frame, nested)  # type: ignore[arg-type]

    monkeypatch.setattr(frames, "_units_in_columns", counted)
    column = [float(i) * ureg.eV for i in range(3000)]
    value = pd.DataFrame({"gap": column}) if shape == "frame" else pd.Series(column, name="gap")
    converted = conversions.convert(value)
    assert converted is not None
    assert converted.longer_than is not None
    assert converted.longer_than(100) is True
    assert converted.longer_than(10**9) is False
    assert '"gap [eV]":2999.0' in converted.text(None)  # type: ignore[misc]
    assert len(calls) == 1, len(calls)
