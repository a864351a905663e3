"""A Rappture number, integer, choice or periodic element without ``<default>`` is a required argument: a call
leaving it out is refused naming it, and the program never runs without it. Rappture's tool builder calls such an
input an error ("Must have a default value for this number"); its form would show 0, or nothing chosen. Inputs
whose form starts with a value get it: a boolean is off (``no``), a string empty, a multichoice has nothing picked.
An input a loader's example sets is not required, but a call whose example does not set it is refused the same.

trial64 F5: ``nodefault {}`` (a length without ``<default>``) ran the program, which read ``None`` and crashed
(``Rappture.Units.UnitError: bad value None``); the schema said nothing was required.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from support import command_server, mcp_client

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

pytest.importorskip("pint")

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>plate</id><command>python3 @tool/plate.py @driver</command></tool>
  <input>
    <number id="thickness"><about><label>Thickness</label></about><units>mm</units><min>0mm</min></number>
    <integer id="layers"><about><label>Layers</label></about></integer>
    <choice id="material">
      <about><label>Material</label></about>
      <option><about><label>Steel</label></about><value>steel</value></option>
      <option><about><label>Glass</label></about><value>glass</value></option>
    </choice>
    <boolean id="coated"><about><label>Coated</label></about></boolean>
    <string id="note"><about><label>Note</label></about></string>
    <multichoice id="tests">
      <about><label>Tests</label></about>
      <option><about><label>Bend</label></about><value>bend</value></option>
      <option><about><label>Pull</label></about><value>pull</value></option>
    </multichoice>
  </input>
  <output><string id="seen"><about><label>Seen</label></about></string></output>
</run>
"""

PROGRAM = """import json, sys
import Rappture

driver = Rappture.library(sys.argv[1])
seen = {name: driver.get(f"input.{kind}({name}).current") for kind, name in (
    ("number", "thickness"), ("integer", "layers"), ("choice", "material"), ("boolean", "coated"),
    ("string", "note"), ("multichoice", "tests"))}
with open(sys.argv[0] + ".ran", "a") as ran:
    ran.write(json.dumps(seen) + "\\n")
driver.put("output.string(seen).current", json.dumps(seen))
Rappture.result(driver)
"""


@pytest.fixture
def tool(tmp_path: Path) -> Path:
    folder = tmp_path / "plate"
    folder.mkdir()
    (folder / "tool.xml").write_text(TOOL)
    (folder / "plate.py").write_text(PROGRAM)
    return folder


@pytest.mark.anyio
async def test_a_call_leaving_it_out_is_refused_and_no_program_runs(tool: Path, tmp_path: Path) -> None:
    with command_server("rappture", str(tool / "tool.xml"), "--port", "0", "--no-plot",
                        log=tmp_path / "server.log", cwd=tmp_path) as served, anyio.fail_after(120):
        async with mcp_client(served.url + "mcp") as client:
            (listed,) = (await client.list_tools()).tools
            schema = listed.input_schema
            assert schema["required"] == ["thickness", "layers", "material"]
            assert schema["properties"]["coated"]["default"] is False
            assert schema["properties"]["note"]["default"] == ""
            assert schema["properties"]["tests"]["default"] == []

            refused = await client.call_tool("plate", {"thickness": 2})
            assert refused.is_error
            assert refused.content[0].text.splitlines() == [  # type: ignore[union-attr]
                "Invalid arguments for tool 'plate': arguments: \"layers\" is a required property",
                "Invalid arguments for tool 'plate': arguments: \"material\" is a required property",
            ]
            assert (await client.call_tool("plate", {"thickness": None, "layers": 1, "material": "steel"})).is_error
            assert not (tool / "plate.py.ran").exists()

            ran = await client.call_tool("plate", {"thickness": 2, "layers": 3, "material": "Glass"})
            assert not ran.is_error, ran.content
            assert json.loads(ran.structured_content["outputs"]["seen"]["value"]) == {
                "thickness": "2mm", "layers": "3", "material": "glass", "coated": "no", "note": "", "tests": "",
            }


LOADED = """<?xml version="1.0"?>
<run>
  <tool><id>loaded</id><command>python3 @tool/plate.py @driver</command></tool>
  <input>
    <loader><about><label>Start from</label></about><example>*.xml</example><default>thick.xml</default></loader>
    <number id="thickness"><about><label>Thickness</label></about><units>mm</units></number>
    <integer id="layers"><about><label>Layers</label></about></integer>
  </input>
</run>
"""

EXAMPLE = """<?xml version="1.0"?>
<run><about><label>{label}</label></about><input>{inputs}</input></run>
"""


def test_an_input_a_loader_example_sets_is_not_required_but_still_needs_a_value(tmp_path: Path) -> None:
    folder = tmp_path / "loaded"
    (folder / "examples").mkdir(parents=True)
    (folder / "tool.xml").write_text(LOADED)
    (folder / "plate.py").write_text(PROGRAM.replace('("choice", "material"), ("boolean", "coated"),\n    '
                                                     '("string", "note"), ("multichoice", "tests")', ""))
    (folder / "examples" / "thick.xml").write_text(EXAMPLE.format(
        label="Thick", inputs="<number id='thickness'><current>9mm</current></number>"))
    (folder / "examples" / "bare.xml").write_text(EXAMPLE.format(label="Bare", inputs=""))
    server = MCPServer("loaded")
    server.add_rappture_tool(folder / "tool.xml")
    with in_memory(server) as client:
        (listed,) = client.list_tools()
        assert listed["inputSchema"]["required"] == ["layers"]  # a loader example sets the thickness
        ran = client.call_tool("loaded", {"layers": 2})
        assert not ran["isError"], ran
        assert json.loads(ran["structuredContent"]["outputs"]["seen"]["value"])["thickness"] == "9mm"
        (folder / "plate.py.ran").unlink()
        refused = client.call_tool("loaded", {"layers": 2, "loader": "Bare"})  # an example without it
        assert refused["isError"]
        assert refused["content"][0]["text"] == (
            "Invalid arguments for tool 'loaded': thickness (Thickness): missing: it has no <default>, so a call "
            "must give it (a number in mm)")
        assert not (folder / "plate.py.ran").exists()
