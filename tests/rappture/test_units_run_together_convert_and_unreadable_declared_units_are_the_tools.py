"""Units run together are a product, as Rappture reads them; units the tool declares that cannot be read are said
to be the tool's (trial 67, F9).

A mobility declared ``<units>cm2/Vs</units>`` (the usual nanoHUB spelling) registered, then every value sent in
other units (``"0.14 m^2/(V*s)"``) was refused as ``unknown unit 'Vs' in 'm^2/(V*s)'``: the caller's text holds no
``Vs``, the tool's units do. Rappture's ``RpUnits`` reads run-together units as a product (``cm2/kVns`` is cm²,
kV⁻¹, ns⁻¹), so ``Vs`` is V·s, and so does ``Rappture.Units`` now. Units that still cannot be read are named as the
declared ones, with what a caller can give.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from nanohubmcp.sources.rappture import load_rappture_tool
from nanohubmcp.sources.rappture.units import convert

pytest.importorskip("pint")

TOOL = """<?xml version="1.0"?>
<run>
  <tool><title>Mobility</title><command>{python} @tool/echo.py @driver</command></tool>
  <input>
    <number id="mob">
      <about><label>Mobility</label></about>
      <units>{units}</units><min>{low}</min><max>1e5{units}</max><default>1400{units}</default>
    </number>
  </input>
</run>
"""

ECHO = """import sys
import Rappture
io = Rappture.PyXml(sys.argv[1])
io["output.string(mob).current"] = io["input.number(mob).current"].value
io.close()
"""


def _tool(tmp_path: Path, units: str, low: str) -> Any:
    (tmp_path / "tool.xml").write_text(TOOL.format(python=sys.executable, units=units, low=low))
    (tmp_path / "echo.py").write_text(ECHO)
    return load_rappture_tool(tmp_path / "tool.xml")


def test_run_together_units_are_a_product() -> None:
    assert convert("0.14m2/Vs", "cm2/Vs") == 1400
    assert convert("1kVns", "V*s") == pytest.approx(1e-6)
    assert convert("2Vs2", "V*s**2") == 2  # the power is the last unit's


def test_a_mobility_in_cm2_per_vs_takes_values_in_other_units(tmp_path: Path) -> None:
    tool = _tool(tmp_path, "cm2/Vs", "1e-4m2/Vs")  # a limit in other units: read at registration
    assert tool.schema["properties"]["mob"]["minimum"] == 1
    for given in ("0.14 m^2/(V*s)", "0.14 m2/Vs", "1400cm2/Vs", 1400):
        result = tool.run({"mob": given}, plot=False).to_wire()
        assert not result["isError"], (given, result)
        assert result["structuredContent"]["outputs"]["mob"]["value"] == "1400cm2/Vs", given


def test_units_the_tool_declares_that_cannot_be_read_are_named_as_the_tools(tmp_path: Path) -> None:
    tool = _tool(tmp_path, "cm2/Vq", "1cm2/Vq")
    from nanohubmcp.errors import InvalidArguments

    with pytest.raises(InvalidArguments) as refused:
        tool.run({"mob": "0.14 m^2/(V*s)"}, plot=False)
    text = str(refused.value)
    assert "the declared units 'cm2/Vq' cannot be read (unknown unit 'Vq')" in text, text
    assert "give the number in cm2/Vq" in text, text
    assert "in 'm^2/(V*s)'" not in text, text
    assert not tool.run({"mob": "1400cm2/Vq"}, plot=False).to_wire()["isError"]
