"""A Rappture number out of range sent as a plain number is refused in the words the same number sent as text
gets (the input's name and label, the limit with its units), and a boolean given a text Rappture does not read
is told the texts it takes — over MCP (the real ``nanohubmcp rappture`` server, the official client) and REST.

trial64 F1: ``{"length": 20}`` for a length of at most ``10m`` was ``arguments.length: 20 is greater than the
maximum of 10`` ("10" of what?), while ``"20m"`` was ``length (Length): '20m' is 20m, above the maximum 10m``.
F2: ``{"hang": "maybe"}`` was ``arguments.hang: "maybe" is not valid under any of the given schemas``.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2 as httpx
import pytest
from support import command_server, mcp_client

pytest.importorskip("pint")

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>beam</id><command>python3 @tool/beam.py @driver</command></tool>
  <input>
    <number id="length">
      <about><label>Length</label></about><units>m</units><min>0.1m</min><max>10</max><default>1m</default>
    </number>
    <number id="load"><about><label>Load</label></about><units>N</units><min>0N</min><default>100N</default></number>
    <integer id="steps"><about><label>Steps</label></about><min>1</min><max>50</max><default>5</default></integer>
    <boolean id="hang"><about><label>Hang</label></about><default>no</default></boolean>
  </input>
  <output><string id="seen"><about><label>Seen</label></about></string></output>
</run>
"""

PROGRAM = """import sys
import Rappture

driver = Rappture.library(sys.argv[1])
with open(sys.argv[0] + ".ran", "a") as ran:
    ran.write("run\\n")
driver.put("output.string(seen).current", driver.get("input.number(length).current"))
Rappture.result(driver)
"""

REFUSED = {
    # (arguments, what the answer says): a plain number as its text form is said
    json.dumps({"length": 20}): "Invalid arguments for tool 'beam': length (Length): 20 is above the maximum 10m",
    json.dumps({"length": "20m"}): "Invalid arguments for tool 'beam': length (Length): '20m' is 20m, above the "
                                   "maximum 10m",
    json.dumps({"length": 0.05}): "Invalid arguments for tool 'beam': length (Length): 0.05 is below the minimum 0.1m",
    json.dumps({"load": -5}): "Invalid arguments for tool 'beam': load (Load): -5 is below the minimum 0N",
    json.dumps({"steps": 60}): "Invalid arguments for tool 'beam': steps (Steps): 60 is above the maximum 50",
    json.dumps({"hang": "maybe"}): "Invalid arguments for tool 'beam': hang (Hang): 'maybe' is not a yes-or-no "
                                   "value: give true or false (or 1/0, or one of the texts yes/no, on/off, "
                                   "true/false, 1/0, in any case)",
}


@pytest.fixture
def tool(tmp_path: Path) -> Path:
    folder = tmp_path / "beam"
    folder.mkdir()
    (folder / "tool.xml").write_text(TOOL)
    (folder / "beam.py").write_text(PROGRAM)
    return folder


@pytest.mark.anyio
async def test_the_official_client_is_told_the_input_and_the_limit_with_its_units(tool: Path, tmp_path: Path) -> None:
    with command_server("rappture", str(tool / "tool.xml"), "--port", "0", "--no-plot",
                        log=tmp_path / "server.log", cwd=tmp_path) as served:
        with anyio.fail_after(120):
            async with mcp_client(served.url + "mcp") as client:
                for arguments, said in REFUSED.items():
                    result = await client.call_tool("beam", json.loads(arguments))
                    assert result.is_error, arguments
                    assert result.content[0].text == said  # type: ignore[union-attr]
                both = await client.call_tool("beam", {"length": 20, "hang": "maybe", "extra": 1})
                assert both.is_error
                assert both.content[0].text.splitlines() == [  # type: ignore[union-attr]
                    "Invalid arguments for tool 'beam': arguments: Additional properties are not allowed "
                    '("extra" was unexpected)',
                    REFUSED[json.dumps({"hang": "maybe"})],
                    REFUSED[json.dumps({"length": 20})],
                ]
                assert not (tool / "beam.py.ran").exists()  # no program ran for any of them
                ran = await client.call_tool("beam", {"length": 10, "hang": "No"})
                assert not ran.is_error, ran.content
                assert ran.structured_content["outputs"]["seen"]["value"] == "10m"


def test_rest_answers_400_in_the_same_words(tool: Path, tmp_path: Path) -> None:
    with command_server("rappture", str(tool / "tool.xml"), "--port", "0", "--no-plot",
                        log=tmp_path / "server.log", cwd=tmp_path) as served:
        for arguments, said in REFUSED.items():
            reply = httpx.post(f"{served.url}tools/beam", json=json.loads(arguments), timeout=60)
            assert reply.status_code == 400, reply.text
            assert reply.json()["error"] == said
    assert not (tool / "beam.py.ran").exists()
