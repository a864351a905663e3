"""The ``nanohubmcp`` command prints a RegistrationWarning as the docs show it, ``RegistrationWarning: ...``.

Found by a user trial (trial 68, R3): each warning came as ``/path/.venv/bin/nanohubmcp:8: RegistrationWarning: ...``
followed by a line ``  sys.exit(main())``: the console script's frame, which says nothing to whoever runs the
command. The command installs its formatter for its own run only: importing the package changes nothing.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from nanohubmcp.cli import main
from nanohubmcp.errors import RegistrationWarning

TOOL = """<?xml version="1.0"?>
<run>
  <tool><title>Field</title><command>python @tool/field.py @driver</command></tool>
  <input>
    <number id="emax"><about><label>Peak field</label></about><default>1</default></number>
    <number id="emax"><about><label>Breakdown field</label></about><default>2</default></number>
  </input>
</run>
"""


def test_the_console_script_prints_a_warning_as_one_line(tmp_path: Path) -> None:
    (tmp_path / "tool.xml").write_text(TOOL)
    script = Path(sys.executable).parent / "nanohubmcp"  # what a user runs (its frame was the one printed)
    done = subprocess.run([str(script), "server-json", "tool.xml", "-o", "server.json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=True)
    lines = done.stderr.splitlines()
    warned = [line for line in lines if "RegistrationWarning" in line]
    assert len(warned) == 1, done.stderr
    assert warned[0].startswith("RegistrationWarning: Rappture inputs share the path input.number(emax)")
    assert "sys.exit" not in done.stderr


def test_only_the_commands_run_formats_warnings(tmp_path: Path) -> None:
    assert warnings.formatwarning.__module__ == "warnings"  # imported: Python's own, as a notebook keeps it
    (tmp_path / "tool.xml").write_text(TOOL)
    with pytest.warns(RegistrationWarning):
        assert main(["server-json", str(tmp_path / "tool.xml"), "-o", str(tmp_path / "server.json")]) == 0
    assert warnings.formatwarning.__module__ == "warnings"  # put back after the command


APP = '''from nanohubmcp import MCPServer

server = MCPServer("undescribed")


@server.tool()
def add(a: int, b: int) -> int:
    return a + b
'''


def test_a_warning_naming_a_line_of_the_users_app_keeps_it(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    script = Path(sys.executable).parent / "nanohubmcp"
    done = subprocess.run([str(script), "server-json", "app.py", "-o", "server.json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=True)
    assert "app.py:6: RegistrationWarning: " in done.stderr  # the decorator's line: where to add a docstring
