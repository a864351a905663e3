"""A Rappture string input reaches the program as the client sent it (trial28 T6).

The driver file is XML, and an XML parser turns every line end into ``\\n``: a CR written as
itself came back as ``\\n`` (``"cr\\r\\nlf"`` arrived as ``"cr\\nlf"``). The driver now holds a CR
as a character reference, so the program (off a hub: the tool's ``<command>`` reading the driver
with the ``Rappture`` package) reads CRs, tabs and every other character XML 1.0 can hold as
sent. What XML 1.0 cannot hold (NUL, most C0 controls, U+FFFE, a lone surrogate) is refused as
invalid arguments naming the input, over REST a 400, before any program runs.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from support import serve

from nanohubmcp import InvalidArguments, MCPServer
from nanohubmcp.sources.rappture import load_rappture_tool

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>show</id><command>python @tool/show.py @driver</command></tool>
  <input>
    <string id="text"><about><label>Text</label></about><default>none</default></string>
  </input>
  <output><string id="seen"><about><label>Seen</label></about></string></output>
</run>
"""

PROGRAM = """import json, sys
import Rappture

driver = Rappture.library(sys.argv[1])
text = driver.get("input.string(text).current")
driver.put("output.string(seen).current", json.dumps(text))  # ASCII: the run file's own XML changes nothing
Rappture.result(driver)
"""

SENT = "cr\r\nlf|cr\ronly|lf\nonly|tab\there|del\x7f|c1\x85\x9f|bmp\ufffd|astral\U0001f600|amp&<lt>|end"


@pytest.fixture
def tool_xml(tmp_path: Path) -> Path:
    (tmp_path / "show.py").write_text(PROGRAM)
    path = tmp_path / "tool.xml"
    path.write_text(TOOL)
    return path


def seen(result: dict[str, Any]) -> str:
    assert not result["isError"], result
    return str(json.loads(result["structuredContent"]["outputs"]["seen"]["value"]))


def test_the_program_reads_crs_tabs_and_other_xml_characters_as_sent(tool_xml: Path) -> None:
    tool = load_rappture_tool(tool_xml, rappture="")
    assert seen(tool.run({"text": SENT}, plot=False).to_wire()) == SENT
    assert seen(tool.run({"text": "a\r\r\nb"}, plot=False).to_wire()) == "a\r\r\nb"


@pytest.mark.parametrize(
    ("text", "character"),
    [
        ("a\x00b", "U+0000 (at 1)"),
        ("\x01", "U+0001 (at 0)"),
        ("x\x0bx", "U+000B (at 1)"),
        ("ok\ufffe", "U+FFFE (at 2)"),
        ("lone\ud800", "U+D800 (at 4)"),
    ],
)
def test_characters_xml_cannot_hold_are_invalid_arguments_naming_the_input(
    tool_xml: Path, text: str, character: str
) -> None:
    tool = load_rappture_tool(tool_xml, rappture="")
    with pytest.raises(InvalidArguments) as caught:
        tool.run({"text": text}, plot=False)
    assert str(caught.value) == (
        f"Invalid arguments for tool 'show': text (Text): contains the character {character}, which an XML file "
        "cannot hold; leave it out"
    )


def test_over_rest_the_value_comes_back_whole_and_a_nul_is_a_400(tool_xml: Path) -> None:
    server = MCPServer("show")
    server.add_rappture_tool(tool_xml, rappture="")
    with serve(server) as url:

        def post(arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
            request = urllib.request.Request(f"{url}tools/show", data=json.dumps(arguments).encode(),
                                             headers={"Content-Type": "application/json"}, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=60) as answer:
                    return answer.status, json.loads(answer.read())
            except urllib.error.HTTPError as error:
                return error.code, json.loads(error.read())

        status, body = post({"text": "cr\r\nlf"})
        assert status == 200, body
        assert json.loads(body["outputs"]["seen"]["value"]) == "cr\r\nlf"
        status, body = post({"text": "a\x00b"})
        assert status == 400, body
        assert "text (Text): contains the character U+0000" in json.dumps(body)
