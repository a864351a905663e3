"""A pint Quantity with a Python ``complex`` magnitude, or with an uncertainty, arrives as data (trial63 F2, F3).

Before: ``(1 + 2j) * ureg.ohm`` (an impedance) returned alone failed the call with the encoder's bare "Object of type
complex is not JSON serializable" and an ERROR traceback, though ``np.complex128(1 + 2j) * ureg.ohm`` was
``{"magnitude": [1.0, 2.0], "units": "Ω"}``; REST answered 500. A pint ``Measurement`` (``q.plus_minus(0.01)``)
failed alike naming ``Variable``. Now a ``complex`` magnitude is ``[real, imag]`` by the one rule the package uses for
such numbers (``convert.kinds.number_form``: an object array's complex element and a table cell too), and a
magnitude with an uncertainty is ``{"magnitude": nominal, "uncertainty": std_dev, "units": ...}`` with the text
``(1.12 +/- 0.01) eV``. The uncertainty cases need the ``uncertainties`` package (pint's Measurement needs it) and
are skipped without it.
"""

from __future__ import annotations

import json
import logging

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
IMPEDANCE = {"magnitude": [1.0, 2.0], "units": "Ω"}
GAP = {"magnitude": 1.12, "uncertainty": 0.01, "units": "eV"}


def uncertainties_or_skip() -> None:
    pytest.importorskip("uncertainties", reason="the uncertainty cases need `pip install uncertainties`")


def build() -> MCPServer:
    server = MCPServer("complex", provenance=False)

    @server.tool()
    def impedance() -> object:
        """An impedance, a Python complex with units."""
        return (1 + 2j) * ureg.ohm

    @server.tool()
    def impedances() -> object:
        """The same value in a dict, an object array of complex numbers, and a table of them."""
        return {"z": (1 + 2j) * ureg.ohm, "objects": np.array([1 + 2j, "a"], dtype=object),
                "table": pd.DataFrame({"z": [1 + 2j, 3 - 1j]})}

    @server.tool()
    def measured_gap() -> object:
        """A band gap with its error bar (pint's Measurement)."""
        return (1.12 * ureg.eV).plus_minus(0.01)

    @server.tool()
    def uncertain_gap() -> object:
        """A Quantity of an uncertainties value, inside a dict."""
        from uncertainties import ufloat

        return {"gap": ufloat(1.12, 0.01) * ureg.eV}

    @server.resource("units://impedance")
    def kept() -> object:
        """The impedance, as a resource."""
        return (1 + 2j) * ureg.ohm

    return server


def test_a_python_complex_magnitude_is_real_and_imaginary_parts(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR), in_memory(build()) as client:
        result = client.call_tool("impedance")
        contents = client.read_resource("units://impedance")
    assert not result["isError"], result
    assert result["structuredContent"] == IMPEDANCE
    assert result["content"][0]["text"] == "(1+2j) Ω"
    assert json.loads(result["content"][-1]["text"]) == IMPEDANCE
    assert json.loads(contents[0]["text"]) == IMPEDANCE
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_python_complex_numbers_follow_one_rule_in_a_dict_an_object_array_and_a_table() -> None:
    with in_memory(build()) as client:
        result = client.call_tool("impedances")
    assert not result["isError"], result
    assert result["structuredContent"] == {
        "z": IMPEDANCE,
        "objects": [[1.0, 2.0], "a"],
        "table": [{"index": 0, "z": [1.0, 2.0]}, {"index": 1, "z": [3.0, -1.0]}],
    }


@pytest.mark.anyio
async def test_a_complex_quantity_reaches_the_official_client_and_rest() -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("impedance", {})
        status, answer = await anyio.to_thread.run_sync(post_json, url + "tools/impedance", {})
    assert not result.is_error, result.content
    assert result.structured_content == IMPEDANCE
    assert (status, answer) == (200, IMPEDANCE)


def test_a_measurement_is_its_nominal_value_uncertainty_and_units(caplog: pytest.LogCaptureFixture) -> None:
    uncertainties_or_skip()
    with caplog.at_level(logging.ERROR), in_memory(build()) as client:
        result = client.call_tool("measured_gap")
    assert not result["isError"], result
    assert result["structuredContent"] == GAP
    assert result["content"][0]["text"] == "(1.12 +/- 0.01) eV"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_a_quantity_of_an_uncertainties_value_in_a_dict_is_the_same_object() -> None:
    uncertainties_or_skip()
    with in_memory(build()) as client:
        result = client.call_tool("uncertain_gap")
    assert not result["isError"], result
    assert result["structuredContent"] == {"gap": GAP}


@pytest.mark.anyio
async def test_a_measurement_reaches_the_official_client_and_rest() -> None:
    uncertainties_or_skip()
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("measured_gap", {})
        status, answer = await anyio.to_thread.run_sync(post_json, url + "tools/measured_gap", {})
    assert not result.is_error, result.content
    assert result.structured_content == GAP
    assert (status, answer) == (200, GAP)
