"""A tool name the command line refuses is answered in the command's terms (trial 67, F14).

``nanohubmcp rappture tool.xml --name "my beam!"`` answered ``choose another, e.g. name='my_beam'`` (the keyword
of ``add_rappture_tool``); on the command line the fix is ``--name my_beam``. The Python form stays for Python.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.cli import main
from nanohubmcp.errors import RegistrationError

FERMI = Path(__file__).parent / "tools" / "fermi" / "tool.xml"


def test_the_command_says_its_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rappture", str(FERMI), "--name", "my beam!", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "e.g. --name my_beam" in err, err
    assert "name='my_beam'" not in err, err


def test_python_keeps_the_keyword() -> None:
    with pytest.raises(RegistrationError, match=r"e\.g\. name='my_beam'"):
        MCPServer("t").add_rappture_tool(FERMI, name="my beam!")
