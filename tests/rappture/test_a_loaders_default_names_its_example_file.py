"""A loader's ``<default>`` names the example a run starts from by its file name, as Rappture's
documentation of ``<loader>`` writes it (``<example>l1/*.xml</example><default>second.xml</default>``):
that example is the argument's schema default, and a call without the argument gets its values.
A default written as the example's label, or as its path under ``examples/``, works as before.

Found by a user trial (trial24 F5): a default naming the file matched no option (the options are
the examples' labels), so the schema had no default and the run started from no example.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationWarning
from nanohubmcp.sources.rappture import load_rappture_tool

ECHO = Path(__file__).parent / "tools" / "inputs" / "echo.py"
TOOL_XML = """<?xml version="1.0"?>
<run>
  <tool><title>Loads</title><command>python3 @tool/echo.py @driver</command></tool>
  <input>
    <loader>
      <about><label>Example</label></about>
      <example>l1/*.xml</example>
      <default>{default}</default>
    </loader>
    <string id="title"><about><label>Title</label></about><default>none</default></string>
  </input>
</run>
"""
EXAMPLE = """<?xml version="1.0"?>
<run>
  <about><label>{label}</label></about>
  <input><string id="title"><current>{title}</current></string></input>
</run>
"""


def _tool(tmp_path: Path, default: str) -> Path:
    tool = tmp_path / "loads"
    (tool / "examples" / "l1").mkdir(parents=True)
    (tool / "tool.xml").write_text(TOOL_XML.format(default=default))
    shutil.copy(ECHO, tool / "echo.py")
    for name, label, title in (("first.xml", "First run", "from first"), ("second.xml", "Second run", "from second")):
        (tool / "examples" / "l1" / name).write_text(EXAMPLE.format(label=label, title=title))
    return tool / "tool.xml"


def _seen(result: Any) -> dict[str, str]:
    wire = result.to_wire()
    assert not wire["isError"], wire
    return {k.removeprefix("input_"): v["value"] for k, v in wire["structuredContent"]["outputs"].items()}


@pytest.mark.parametrize("default", ["second.xml", "l1/second.xml", "Second run"])
def test_the_example_a_loaders_default_names_is_the_default_and_is_loaded(tmp_path: Path, default: str) -> None:
    tool = load_rappture_tool(_tool(tmp_path, default), rappture="")
    loader = tool.schema["properties"]["loader"]
    assert loader["enum"] == ["First run", "Second run"]
    assert loader["default"] == "Second run"
    seen = _seen(tool.run({}, plot=False))
    assert seen["loader"] == "Second run"
    assert seen["string_title"] == "from second", "a call without the argument starts from the default example"
    assert _seen(tool.run({"loader": "First run"}, plot=False))["string_title"] == "from first"
    assert _seen(tool.run({"title": "given"}, plot=False))["string_title"] == "given"

    server = MCPServer("loads", job_store="memory")
    record = server.add_rappture_tool(tool.path, rappture="")
    assert record.input_schema["properties"]["loader"]["default"] == "Second run"


def test_examples_sharing_a_label_are_told_apart_and_the_default_file_stays_the_default(tmp_path: Path) -> None:
    """trial34 X11: a copied example not yet relabelled (``dup.xml``, labelled as ``second.xml`` is)
    took that label silently, and the loader's ``<default>second.xml</default>`` then named no option:
    the schema lost its default and calls without the argument started from no example."""
    xml = _tool(tmp_path, "second.xml")
    (xml.parent / "examples" / "l1" / "dup.xml").write_text(EXAMPLE.format(label="Second run", title="from dup"))
    with pytest.warns(RegistrationWarning, match=r"examples share a label \('Second run'\)"):
        tool = load_rappture_tool(xml, rappture="")
    loader = tool.schema["properties"]["loader"]
    assert loader["enum"] == ["Second run (l1/dup.xml)", "First run", "Second run (l1/second.xml)"]
    assert loader["default"] == "Second run (l1/second.xml)"
    assert _seen(tool.run({}, plot=False))["string_title"] == "from second"
    assert _seen(tool.run({"loader": "Second run (l1/dup.xml)"}, plot=False))["string_title"] == "from dup"


def test_a_default_written_as_a_label_now_shared_names_the_first_example_with_it(tmp_path: Path) -> None:
    """trial35 Y13: ``<default>Second run</default>`` (a label) and a copy of ``second.xml`` not yet
    relabelled: the made names ``Second run (l1/...)`` matched the default no more, so the schema lost
    its default and a call without the argument ran from no example. The label names the first
    example having it, in the loader's order, as Rappture's own loader keeps the first file of a label."""
    xml = _tool(tmp_path, "Second run")
    (xml.parent / "examples" / "l1" / "second_copy.xml").write_text(EXAMPLE.format(label="Second run", title="copy"))
    with pytest.warns(RegistrationWarning, match=r"its <default> 'Second run' names the first of them, l1/second\.xml"):
        tool = load_rappture_tool(xml, rappture="")
    loader = tool.schema["properties"]["loader"]
    assert loader["enum"] == ["First run", "Second run (l1/second.xml)", "Second run (l1/second_copy.xml)"]
    assert loader["default"] == "Second run (l1/second.xml)"
    assert _seen(tool.run({}, plot=False))["string_title"] == "from second"


def test_a_label_that_is_a_name_made_for_another_example_is_told_apart_too(tmp_path: Path) -> None:
    """trial35 Y13: an example labelled literally ``Second run (l1/second.xml)`` beside two sharing
    ``Second run`` gave the enum that value twice, naming two examples."""
    xml = _tool(tmp_path, "second.xml")
    examples = xml.parent / "examples" / "l1"
    (examples / "second_copy.xml").write_text(EXAMPLE.format(label="Second run", title="copy"))
    (examples / "x.xml").write_text(EXAMPLE.format(label="Second run (l1/second.xml)", title="from x"))
    with pytest.warns(RegistrationWarning, match="examples share a label"):
        tool = load_rappture_tool(xml, rappture="")
    loader = tool.schema["properties"]["loader"]
    assert loader["enum"] == ["First run", "Second run (l1/second.xml)", "Second run (l1/second_copy.xml)",
                              "Second run (l1/second.xml) (l1/x.xml)"]
    assert loader["default"] == "Second run (l1/second.xml)"
    assert _seen(tool.run({}, plot=False))["string_title"] == "from second"
    assert _seen(tool.run({"loader": "Second run (l1/second.xml) (l1/x.xml)"}, plot=False))["string_title"] == "from x"
