"""A call made after the ``<input>`` section of a served tool.xml was edited is refused, naming the file and
saying to serve the tool again: the run would take the inputs (defaults, units, limits) registered, while its
provenance record and RO-Crate name the edited tool.xml. An edit elsewhere in tool.xml (or of a program) runs,
and an edit back to the registered inputs is served again.

Found by a user trial (trial39 R7): after ``<default>hello</default>`` became ``world`` the program still got
``hello``, under the edited file's code hash.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

TOOL_XML = """<?xml version="1.0"?>
<run>
  <tool><title>Echo</title><command>python3 @tool/echo.py @driver</command></tool>
  <input><string id="word"><about><label>Word</label></about><default>hello</default></string></input>
  <output><string id="said"><about><label>Said</label></about></string></output>
</run>
"""
PROGRAM = """import sys

import Rappture

driver = Rappture.library(sys.argv[1])
driver.put("output.string(said).current", driver.get("input.string(word).current"))
Rappture.result(driver)
"""


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_an_edited_input_section_is_refused_until_served_again(tmp_path: Path) -> None:
    tool_dir = tmp_path / "echo"
    tool_dir.mkdir()
    xml = tool_dir / "tool.xml"
    xml.write_text(TOOL_XML)
    (tool_dir / "echo.py").write_text(PROGRAM)
    server = MCPServer("edits", job_store="memory")
    server.add_rappture_tool(tool_dir, rappture="", plot=False)

    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            result = await session.call_tool("echo", {})
            assert result.structured_content["outputs"]["said"]["value"] == "hello"

            xml.write_text(TOOL_XML.replace("<default>hello</default>", "<default>world</default>"))
            result = await session.call_tool("echo", {})
            assert result.is_error
            text = result.content[0].text
            assert str(xml) in text, text
            assert "<input>" in text
            assert "serve the tool again" in text

            xml.write_text(TOOL_XML.replace("<title>Echo</title>", "<title>Echo 2</title>"))
            result = await session.call_tool("echo", {"word": "w"})
            assert not result.is_error, result.content
            assert result.structured_content["outputs"]["said"]["value"] == "w"


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_a_tool_xml_half_saved_or_gone_is_refused_until_restored(tmp_path: Path) -> None:
    """trial41 Q9: a tool.xml that no longer parsed, or was deleted, counted as unedited: the call ran and its
    record (and RO-Crate) held a tool.xml the run did not use."""
    tool_dir = tmp_path / "echo"
    tool_dir.mkdir()
    xml = tool_dir / "tool.xml"
    xml.write_text(TOOL_XML)
    (tool_dir / "echo.py").write_text(PROGRAM)
    server = MCPServer("broken", job_store="memory")
    server.add_rappture_tool(tool_dir, rappture="", plot=False)

    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            for damage, said in ((lambda: xml.write_text("<run><input>"), "no longer parses"),
                                 (xml.unlink, "is gone")):
                damage()
                result = await session.call_tool("echo", {})
                assert result.is_error
                text = result.content[0].text
                assert str(xml) in text, text
                assert said in text, text
                assert "restore the file" in text
                assert "serve the tool again" in text
                assert "\n" not in text

                xml.write_text(TOOL_XML)
                result = await session.call_tool("echo", {})
                assert not result.is_error, result.content
