"""A path given to the wrong one of ``nanohubmcp rappture`` / ``nanohubmcp sim2l`` says which takes it, and a
directory without the file looked for says where it looked (not "no such file").

Found by a user trial (trial39 R2).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.errors import RegistrationError
from nanohubmcp.sources.rappture import load_rappture_tool
from nanohubmcp.sources.sim2l.notebook import read_sim2l

ROOT = Path(__file__).parents[2]
FERMI = ROOT / "tests" / "rappture" / "tools" / "fermi"
COOLING = ROOT / "examples" / "sim2l" / "cooling"


def test_an_empty_directory_is_not_called_missing(tmp_path: Path) -> None:
    with pytest.raises(RegistrationError) as caught:
        load_rappture_tool(tmp_path)
    text = str(caught.value)
    assert "no such file" not in text
    assert "tool.xml" in text
    assert "rappture/tool.xml" in text


def test_a_sim2l_folder_given_as_a_rappture_tool_names_the_sim2l_command() -> None:
    with pytest.raises(RegistrationError, match="nanohubmcp sim2l"):
        load_rappture_tool(COOLING)


def test_a_tool_xml_given_as_a_sim2l_names_the_rappture_command(tmp_path: Path) -> None:
    with pytest.raises(RegistrationError, match=r"a Rappture tool\.xml, not a Jupyter notebook.*nanohubmcp rappture"):
        read_sim2l(FERMI / "tool.xml")
    with pytest.raises(RegistrationError, match="nanohubmcp rappture"):
        read_sim2l(FERMI)
