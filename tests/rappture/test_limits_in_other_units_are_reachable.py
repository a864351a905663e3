"""Limits and values written in other units than the declared ones convert without float noise:
a trial found ``<max>1um</max>`` on a length in nm published as ``999.9999999999999`` (so 1000 and
"1000nm" were refused as above the maximum, with a message contradicting itself), "10A" refused as
below ``<min>1nm</min>``, and "0.5um" reaching the program as ``499.99999999999994nm``."""

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
  <tool><title>Lengths</title><command>{python} @tool/echo.py @driver</command></tool>
  <input>
    <number id="L">
      <about><label>Length</label></about>
      <units>nm</units><min>1nm</min><max>1um</max><default>10nm</default>
    </number>
    <number id="T">
      <about><label>Temperature</label></about>
      <units>K</units><default>300K</default>
    </number>
  </input>
</run>
"""

ECHO = """import sys
import Rappture
io = Rappture.PyXml(sys.argv[1])
for name in ("L", "T"):
    io["output.string(%s).current" % name] = io["input.number(%s).current" % name].value
io.close()
"""


@pytest.fixture
def tool(tmp_path: Path) -> Any:
    (tmp_path / "tool.xml").write_text(TOOL.format(python=sys.executable))
    (tmp_path / "echo.py").write_text(ECHO)
    return load_rappture_tool(tmp_path / "tool.xml")


def test_converted_limits_are_the_numbers_written() -> None:
    assert convert("1um", "nm") == 1000
    assert convert("10A", "nm") == 1
    assert convert("0.5um", "nm") == 500
    assert convert("-300C", "K") == -26.85
    assert convert("1.6e-20J", "eV") == pytest.approx(0.0998642, rel=1e-6)  # real digits are kept


def test_a_value_at_a_limit_given_in_other_units_passes_and_reaches_the_program_exactly(tool: Any) -> None:
    schema = tool.schema["properties"]["L"]
    assert (schema["minimum"], schema["maximum"]) == (1, 1000)
    for given, written in ((1000, "1000nm"), ("1000nm", "1000nm"), ("1um", "1000nm"), ("10A", "1nm"),
                           ("0.5um", "500nm")):
        result = tool.run({"L": given, "T": "-300C"}, plot=False).to_wire()
        assert not result["isError"], (given, result)
        outputs = result["structuredContent"]["outputs"]
        assert (outputs["L"]["value"], outputs["T"]["value"]) == (written, "-26.85K"), given


@pytest.mark.parametrize("timeout", [-5, 0, float("nan"), float("-inf"), "10", True])
def test_a_timeout_that_is_not_a_positive_number_of_seconds_is_refused(tool: Any, tmp_path: Path, timeout: Any) -> None:
    # A trial finding: `nanohubmcp rappture --timeout -5` served a tool whose every call failed.
    from nanohubmcp.errors import RegistrationError

    with pytest.raises(RegistrationError, match="timeout must be a positive number of seconds"):
        load_rappture_tool(tmp_path / "tool.xml", timeout=timeout)
