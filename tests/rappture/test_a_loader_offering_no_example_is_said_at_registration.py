"""A loader that offers no example, or whose default names none, is said at registration (trial 67, F12).

A ``<loader>`` with no ``examples/`` folder registered silently as ``"enum": []`` (a property no value satisfies,
which some model APIs refuse in a tool's schema), and a ``<default>missing.xml</default>`` naming no example was
taken without a word. Now the empty loader is left out of the arguments (listed with what was skipped) and a
RegistrationWarning names it; a default naming no example is warned of, naming the loader and the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.errors import RegistrationWarning
from nanohubmcp.sources.rappture import load_rappture_tool

TOOL = """<?xml version="1.0"?>
<run>
  <tool><title>Beam</title><command>python @tool/beam.py @driver</command></tool>
  <input>
    <loader><about><label>Example</label></about><example>*.xml</example><default>missing.xml</default></loader>
    <number id="load"><units>N</units><default>100N</default></number>
  </input>
</run>
"""

EXAMPLE = """<?xml version="1.0"?>
<run><about><label>Heavy</label></about>
<input><number id="load"><current>900N</current></number></input></run>
"""


def test_a_loader_without_examples_is_left_out_and_named(tmp_path: Path) -> None:
    (tmp_path / "tool.xml").write_text(TOOL)
    with pytest.warns(RegistrationWarning, match=r"loader 'loader': no example file matches \*\.xml in examples/"):
        tool = load_rappture_tool(tmp_path / "tool.xml")
    assert list(tool.schema["properties"]) == ["load"]
    assert [(s.path, s.reason) for s in tool.inputs.skipped] == [("input.loader", "a loader with no example files")]


def test_a_loader_default_naming_no_example_is_named(tmp_path: Path) -> None:
    (tmp_path / "tool.xml").write_text(TOOL)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "heavy.xml").write_text(EXAMPLE)
    with pytest.warns(RegistrationWarning, match=r"loader 'loader': its <default> 'missing.xml' names none of its "
                                                 r"examples \(heavy.xml\)"):
        tool = load_rappture_tool(tmp_path / "tool.xml")
    assert tool.schema["properties"]["loader"]["enum"] == ["Heavy"]
    assert "default" not in tool.schema["properties"]["loader"]
