"""A pint Quantity holding exact numbers (a ``Decimal``, a ``Fraction``) arrives as their text (review r34 F2).

pint's ``UnitRegistry(non_int_type=Decimal)`` (its documented option for exact arithmetic) makes a converted
Quantity's magnitude a ``Decimal``, and an array one an object array of them; a ``Fraction`` times a unit keeps the
``Fraction``. Before, each failed the call with the encoder's bare "Object of type Decimal is not JSON serializable"
(and an ERROR traceback blaming the tool). Now the magnitude is written as the package writes such a number returned
alone or in a table cell: its text (``"0.0015..."``, ``"3/2"``), in the data and in the summary; an object array of
them (alone, not in a Quantity) likewise, and a ``Fraction`` table cell is its text as a ``Decimal`` one is.
"""

from __future__ import annotations

import decimal
import fractions
import json
import logging

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
pint = pytest.importorskip("pint")

D = decimal.Decimal
F = fractions.Fraction
exact = pint.UnitRegistry(non_int_type=D)
rational = pint.UnitRegistry(non_int_type=F)
ureg = pint.UnitRegistry()
MEV_IN_EV = ["0.001500000000000000000000000000", "0.002000000000000000000000000000"]


def build() -> MCPServer:
    server = MCPServer("exact", provenance=False)

    @server.tool()
    def energy() -> object:
        """1.5 meV in eV, exactly."""
        return (D("1.5") * exact.meV).to("eV")

    @server.tool()
    def energies() -> object:
        """1.5 and 2 meV in eV, exactly."""
        return (np.array([D("1.5"), D("2")]) * exact.meV).to("eV")

    @server.tool()
    def ratio() -> object:
        """Fractions with units."""
        return {"length": F(3, 2) * ureg.meter, "energy": (F(3, 2) * rational.meV).to("eV")}

    @server.tool()
    def objects() -> object:
        """An object array of exact numbers, and a table with a Fraction cell."""
        return {"values": np.array([[D("1.50"), F(1, 3)]], dtype=object), "table": pd.DataFrame({"f": [F(3, 2)]})}

    @server.resource("exact://energies")
    def kept() -> object:
        """The energies."""
        return (np.array([D("1.5"), D("2")]) * exact.meV).to("eV")

    return server


def test_a_decimal_registry_s_scalar_is_its_text(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR), in_memory(build()) as client:
        result = client.call_tool("energy")
    assert not result["isError"], result
    assert result["structuredContent"] == {"magnitude": MEV_IN_EV[0], "units": "eV"}
    assert result["content"][0]["text"] == f"{MEV_IN_EV[0]} eV"
    assert json.loads(result["content"][-1]["text"]) == result["structuredContent"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_a_decimal_registry_s_array_is_its_texts_in_the_data_and_the_summary() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("energies")
        contents = client.read_resource("exact://energies")
    assert not result["isError"], result
    assert result["structuredContent"] == {"magnitude": MEV_IN_EV, "units": "eV"}
    head = result["content"][0]["text"]
    assert head.startswith("pint Quantity in eV (electron_volt): numpy array, shape (2,), dtype object"), head
    assert json.dumps(MEV_IN_EV, separators=(",", ":")) in head
    assert json.loads(contents[0]["text"]) == {"magnitude": MEV_IN_EV, "units": "eV"}


def test_a_fraction_magnitude_is_its_text() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("ratio")
    assert not result["isError"], result
    assert result["structuredContent"] == {
        "length": {"magnitude": "3/2", "units": "m"},
        "energy": {"magnitude": "3/2000", "units": "eV"},
    }


def test_exact_numbers_in_an_object_array_and_a_table_cell_are_their_text() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("objects")
    assert not result["isError"], result
    assert result["structuredContent"] == {"values": [["1.50", "1/3"]], "table": [{"index": 0, "f": "3/2"}]}


@pytest.mark.anyio
async def test_an_exact_quantity_reaches_the_official_client_over_http() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            scalar = await client.call_tool("energy", {})
            array = await client.call_tool("energies", {})
    assert not scalar.is_error, scalar.content
    assert scalar.structured_content == {"magnitude": MEV_IN_EV[0], "units": "eV"}
    assert not array.is_error, array.content
    assert array.structured_content == {"magnitude": MEV_IN_EV, "units": "eV"}
