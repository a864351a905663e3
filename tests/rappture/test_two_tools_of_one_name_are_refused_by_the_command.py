"""``nanohubmcp rappture A B`` (and ``nanohubmcp sim2l A B``) whose tools share a name is refused (exit 1),
naming both paths and ways that work, rather than serving one of them; each served with its own ``--name``
works, as the refusal says.

Found by a user trial (trial39 R1): the server started with one tool, the warning advising another name,
which ``--name`` with two PATHs cannot give.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from nanohubmcp.cli import main
from nanohubmcp.cli.parser import build_parser
from nanohubmcp.cli.serve import rappture_server, sim2l_server
from nanohubmcp.errors import RegistrationError

FERMI = Path(__file__).parent / "tools" / "fermi"
COOLING = Path(__file__).parents[2] / "examples" / "sim2l" / "cooling"
ARRAYS = Path(__file__).parents[1] / "sim2l" / "data" / "arrays" / "cooling.ipynb"


def test_two_rappture_tools_of_one_name_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "r13" / "fermi"  # another revision: the same name, from its folder
    shutil.copytree(FERMI, copy)
    assert main(["rappture", str(FERMI), str(copy), "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert str(FERMI / "tool.xml") in err
    assert str(copy / "tool.xml") in err
    assert "nanohubmcp rappture PATH --name NAME" in err
    assert "add_rappture_tool(PATH, name=NAME)" in err
    server = rappture_server(build_parser().parse_args(["rappture", str(copy), "--name", "fermi_r13"]))
    assert [t.name for t in server.core.registry.tools.values()] == ["fermi_r13"]


def test_two_sim2ls_of_one_name_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "r2" / "cooling"
    shutil.copytree(COOLING, copy)
    assert main(["sim2l", str(COOLING), str(copy), "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "cooling.ipynb and " in err
    assert "nanohubmcp sim2l PATH --name NAME" in err


def test_two_sim2ls_served_under_one_tool_name_are_refused(tmp_path: Path) -> None:
    # review r21 L2: the Sim2L names "my tool" and "my_tool" differ, the tool names they are served as do not
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    spaced, underscored = tmp_path / "a" / "my tool.ipynb", tmp_path / "b" / "my_tool.ipynb"
    shutil.copy(ARRAYS, spaced)
    shutil.copy(ARRAYS, underscored)
    with pytest.raises(RegistrationError, match=re.escape(f"{spaced} and {underscored} are both the tool 'my_tool'")):
        sim2l_server(build_parser().parse_args(["sim2l", str(spaced), str(underscored)]))
