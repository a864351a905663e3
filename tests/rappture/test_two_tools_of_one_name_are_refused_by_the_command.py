"""``nanohubmcp rappture A B`` (and ``nanohubmcp sim2l A B``) whose tools share a name is refused (exit 1),
naming both paths and ways that work, rather than serving one of them; each served with its own ``--name``
works, as the refusal says.

Found by a user trial (trial39 R1): the server started with one tool, the warning advising another name,
which ``--name`` with two PATHs cannot give.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nanohubmcp.cli import main
from nanohubmcp.cli.parser import build_parser
from nanohubmcp.cli.serve import rappture_server

FERMI = Path(__file__).parent / "tools" / "fermi"
COOLING = Path(__file__).parents[2] / "examples" / "sim2l" / "cooling"


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
