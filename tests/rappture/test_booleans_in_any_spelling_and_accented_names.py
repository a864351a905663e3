"""A Rappture boolean takes JSON ``1``/``0`` and Rappture's words in any case (``"YES"``, ``"Off"``), as Tcl's
``string is boolean`` reads them, and nothing else; a tool named from its folder keeps an accented letter's
base letter (``ümlaut-tool`` is served as ``umlaut-tool``).

Found by a user trial (trial39 R14): ``1`` and ``"YES"`` were refused by the schema, and ``ümlaut-tool``
became ``mlaut-tool``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import jsonschema
import pytest

from nanohubmcp.sources.rappture import load_rappture_tool
from nanohubmcp.sources.rappture.driver import current_values

TOOLS = Path(__file__).parent / "tools"
BOOLEAN_XML = """<?xml version="1.0"?>
<run>
  <tool><title>Flag</title><command>python3 @tool/flag.py @driver</command></tool>
  <input><boolean id="fail"><about><label>Fail</label></about><default>no</default></boolean></input>
</run>
"""


@pytest.mark.parametrize(("given", "meant"), [(1, "yes"), (0, "no"), (1.0, "yes"), ("YES", "yes"), (" Off ", "no"),
                                              (True, "yes"), ("on", "yes")])
def test_a_boolean_takes_numbers_and_words_in_any_case(tmp_path: Path, given: object, meant: str) -> None:
    (tmp_path / "tool.xml").write_text(BOOLEAN_XML)
    tool = load_rappture_tool(tmp_path, rappture="")
    jsonschema.validate({"fail": given}, tool.schema)
    assert current_values(tool.name, tool.inputs.arguments, {"fail": given})["input.boolean(fail)"] == meant


@pytest.mark.parametrize("given", [2, "maybe", "yess", None])
def test_a_boolean_refuses_other_values(tmp_path: Path, given: object) -> None:
    (tmp_path / "tool.xml").write_text(BOOLEAN_XML)
    tool = load_rappture_tool(tmp_path, rappture="")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"fail": given}, tool.schema)


def test_an_accented_folder_name_keeps_its_letters(tmp_path: Path) -> None:
    folder = tmp_path / "apps" / "ümlaut-tool"
    shutil.copytree(TOOLS / "fermi", folder)
    xml = (folder / "tool.xml").read_text()
    assert "<id>" not in xml
    assert load_rappture_tool(folder, rappture="").name == "umlaut-tool"
