"""Review r41, R41-5 and R41-12.

R41-5: a Rappture number or integer without limits given as a JSON integer of hundreds of digits was a 500
(``float(int)`` raised OverflowError, which nothing caught), and an integer past 2**53 went through a double and
reached the program changed (-99999999999999999999 as -100000000000000000000). An integer input now takes a JSON
integer exactly (its limits compared exactly); a number input refuses one past a double's range as invalid
arguments naming the input.

R41-12: an image output's ``zb64`` data was inflated whole: about 64 KiB of run file held 64 MiB and more. It is
inflated to at most ``IMAGE_LIMIT`` bytes; past it the run fails saying which output.
"""

from __future__ import annotations

import base64
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest

from nanohubmcp import InvalidArguments, ToolError
from nanohubmcp.sources.rappture import load_rappture_tool
from nanohubmcp.sources.rappture.outputs import IMAGE_LIMIT, read_outputs

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>nums</id><command>python @tool/nums.py @driver</command></tool>
  <input>
    <number id="T"><about><label>Temperature</label></about><units>K</units><default>300K</default></number>
    <integer id="n"><about><label>Count</label></about><default>1</default></integer>
    <integer id="m"><about><label>Bounded</label></about><min>0</min><max>10</max><default>1</default></integer>
  </input>
  <output><string id="seen"><about><label>Seen</label></about></string></output>
</run>
"""

PROGRAM = """import sys
import Rappture

driver = Rappture.library(sys.argv[1])
driver.put("output.string(seen).current", driver.get("input.integer(n).current"))
Rappture.result(driver)
"""


@pytest.fixture
def tool_xml(tmp_path: Path) -> Path:
    (tmp_path / "nums.py").write_text(PROGRAM)
    path = tmp_path / "tool.xml"
    path.write_text(TOOL)
    return path


def test_an_integer_input_takes_a_json_integer_exactly(tool_xml: Path) -> None:
    tool = load_rappture_tool(tool_xml, rappture="")
    for n in (-99999999999999999999, 2**53 + 1, int("9" * 400)):
        answer = tool.run({"n": n}, plot=False).to_wire()
        assert not answer["isError"], answer
        assert answer["structuredContent"]["outputs"]["seen"]["value"] == str(n)


def test_an_integer_past_its_limit_is_refused_exactly(tool_xml: Path) -> None:
    tool = load_rappture_tool(tool_xml, rappture="")
    with pytest.raises(InvalidArguments, match=r"m \(Bounded\): 999999999999\.\.\. \(400 digits\) is above the max"):
        tool.run({"m": int("9" * 400)}, plot=False)


def test_a_number_input_refuses_an_integer_past_a_doubles_range(tool_xml: Path) -> None:
    tool = load_rappture_tool(tool_xml, rappture="")
    with pytest.raises(InvalidArguments, match=r"T \(Temperature\): 999999999999\.\.\. \(400 digits\) is beyond"):
        tool.run({"T": int("9" * 400)}, plot=False)


def image_run(data: bytes) -> ET.Element:
    text = "@@RP-ENC:zb64\n" + base64.b64encode(zlib.compress(data, 9)).decode()
    return ET.fromstring(f"<run><output><image id='pic'><current>{text}</current></image></output></run>")


def test_an_image_inflating_past_the_limit_fails_the_run_naming_it() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 1000
    assert read_outputs(image_run(png), "pics").images == [(png, "image/png")]
    with pytest.raises(ToolError, match="its output image 'pic' cannot be read: its zb64 data inflates past"):
        read_outputs(image_run(b"\x89PNG\r\n\x1a\n" + b"\0" * IMAGE_LIMIT), "pics")
