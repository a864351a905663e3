"""A pint Quantity a tool returns reaches the model as numbers and units (trial62 F2, F3).

Before: an array Quantity was sent as pint's LaTeX, ``$\\begin{pmatrix} & \\end{pmatrix}\\ \\mathrm{meV}$`` (the values
gone, ``isError`` false), a scalar one as LaTeX with no structured content, and a Quantity inside a dict failed the
call ("$['T'] is a Quantity"). Now each is ``{"magnitude": ..., "units": "meV"}``, alone or anywhere inside the data,
in memory and through a real server with the official client; a large one is kept as a resource like an array.
"""

from __future__ import annotations

import json

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

np = pytest.importorskip("numpy")
pint = pytest.importorskip("pint")

ureg = pint.UnitRegistry()
KT_MEV = [8.617333262145179, 25.851999786435535]


def build(**options: object) -> MCPServer:
    server = MCPServer("units", **options)  # type: ignore[arg-type]

    @server.tool()
    def thermal_energy(temperatures_K: np.ndarray) -> object:
        """k_B T in meV for each temperature."""
        return (temperatures_K * ureg.kelvin * ureg.boltzmann_constant).to("meV")

    @server.tool()
    def room_kt() -> object:
        """k_B T at 300 K, in eV."""
        return (300 * ureg.kelvin * ureg.boltzmann_constant).to("eV")

    @server.tool()
    def summary() -> object:
        """Quantities inside a dict and a list."""
        return {"T": 300 * ureg.kelvin, "kT": (300 * ureg.kelvin * ureg.boltzmann_constant).to("meV"),
                "gaps": [1.12 * ureg.eV, np.float64(0.66) * ureg.eV], "ratio": 2 * ureg.dimensionless}

    @server.tool()
    def spectrum(n: int) -> object:
        """n energies in meV."""
        return np.linspace(0.0, 1.0, n) * ureg.meV

    @server.resource("units://gap")
    def gap() -> object:
        """The band gap."""
        return np.array([1.12, 0.66]) * ureg.eV

    return server


def last_json(result: dict) -> object:
    return json.loads(result["content"][-1]["text"])


def test_an_array_quantity_is_its_numbers_and_units_in_memory() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("thermal_energy", {"temperatures_K": [100, 300]})
    assert not result["isError"], result
    expected = {"magnitude": KT_MEV, "units": "meV"}
    assert result["structuredContent"] == expected
    assert last_json(result) == expected  # the text a text-only client reads carries them too
    head = result["content"][0]["text"]
    assert head.startswith("pint Quantity in meV (millielectron_volt): numpy array, shape (2,)"), head
    assert "8.617" in head
    assert "\\begin{pmatrix}" not in head


def test_a_scalar_quantity_is_its_number_and_units_in_memory() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("room_kt")
    assert not result["isError"], result
    assert result["structuredContent"] == {"magnitude": 0.025851999786435535, "units": "eV"}
    assert result["content"][0]["text"] == "0.025851999786435535 eV"
    assert last_json(result) == result["structuredContent"]


def test_quantities_inside_a_dict_and_a_list_are_data() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("summary")
    assert not result["isError"], result
    assert result["structuredContent"] == {
        "T": {"magnitude": 300, "units": "K"},
        "kT": {"magnitude": KT_MEV[1], "units": "meV"},
        "gaps": [{"magnitude": 1.12, "units": "eV"}, {"magnitude": 0.66, "units": "eV"}],
        "ratio": {"magnitude": 2, "units": "dimensionless"},
    }


def test_a_large_array_quantity_is_kept_whole_as_a_resource() -> None:
    with in_memory(build(max_inline_bytes=2000)) as client:
        result = client.call_tool("spectrum", {"n": 1000})
        assert not result["isError"], result
        assert "structuredContent" not in result
        note, link = result["content"]
        assert note["text"].startswith("pint Quantity in meV"), note
        assert "larger than max_inline_bytes (2000)" in note["text"]
        assert link["type"] == "resource_link"
        kept = json.loads(client.read_resource(link["uri"])[0]["text"])
    assert kept["units"] == "meV"
    assert kept["magnitude"] == np.linspace(0.0, 1.0, 1000).tolist()


def test_a_resource_function_s_quantity_reads_as_json() -> None:
    with in_memory(build()) as client:
        contents = client.read_resource("units://gap")
    assert contents[0]["mimeType"] == "application/json"
    assert json.loads(contents[0]["text"]) == {"magnitude": [1.12, 0.66], "units": "eV"}


@pytest.mark.anyio
async def test_quantities_reach_the_official_client_over_http() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            array = await client.call_tool("thermal_energy", {"temperatures_K": [100, 300]})
            scalar = await client.call_tool("room_kt", {})
            nested = await client.call_tool("summary", {})
    assert not array.is_error, array.content
    assert array.structured_content == {"magnitude": KT_MEV, "units": "meV"}
    assert "8.617" in array.content[0].text
    assert not scalar.is_error, scalar.content
    assert scalar.structured_content == {"magnitude": 0.025851999786435535, "units": "eV"}
    assert not nested.is_error, nested.content
    assert nested.structured_content["kT"] == {"magnitude": KT_MEV[1], "units": "meV"}


class LostNumbers:
    """A display-protocol object whose LaTeX form has lost its numbers (as pint's array LaTeX does)."""

    def _repr_latex_(self) -> str:
        return "$\\begin{pmatrix} & \\end{pmatrix}$"

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        return {"text/plain": "[1.5 2.5] meter"}


class Formula:
    """A LaTeX form with no digits where the plain text has none either: the LaTeX is kept."""

    def _repr_latex_(self) -> str:
        return "$\\alpha + \\beta$"

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        return {"text/plain": "alpha + beta"}


def test_a_latex_form_without_the_numbers_of_the_plain_text_is_passed_over() -> None:
    server = MCPServer("display")

    @server.tool()
    def lost() -> object:
        """Rich forms only."""
        return LostNumbers()

    @server.tool()
    def formula() -> object:
        """A formula."""
        return Formula()

    with in_memory(server) as client:
        lost_result = client.call_tool("lost")
        formula_result = client.call_tool("formula")
    assert lost_result["content"] == [{"type": "text", "text": "[1.5 2.5] meter"}]
    assert formula_result["content"] == [{"type": "text", "text": "$\\alpha + \\beta$"}]
