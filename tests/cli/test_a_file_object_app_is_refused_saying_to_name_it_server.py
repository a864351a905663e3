"""``nanohubmcp run othername.py:mcp`` (uvicorn's and fastmcp's ``FILE:OBJECT`` form) is refused saying there
is no such form and how to serve that object: add ``server = mcp`` to the file (fresh-user trial 62, F7:
it said only "app file 'othername.py:mcp' does not exist"). ``desktop-config`` says the same; a usage error,
exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = "from nanohubmcp import MCPServer\nmcp = MCPServer('other')\n"


@pytest.mark.parametrize("command", [["run", "--transport", "stdio"], ["desktop-config"]])
def test_file_colon_object_is_refused_naming_the_fix(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "othername.py").write_text(APP)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", command[0], "othername.py:mcp", *command[1:]],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.endswith(
        f"nanohubmcp {command[0]}: error: othername.py:mcp: there is no FILE:OBJECT form; nanohubmcp serves the "
        "module-level `server` of othername.py: add `server = mcp` to it and give othername.py\n")


def test_file_colon_server_is_told_only_to_give_the_file(tmp_path: Path) -> None:
    """trial69 T69-5: ``srv.py:server`` was told to ``add `server = server` to it``."""
    (tmp_path / "srv.py").write_text("from nanohubmcp import MCPServer\nserver = MCPServer('srv')\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", "srv.py:server", "--transport", "stdio"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert done.stderr.endswith("nanohubmcp run: error: srv.py:server: there is no FILE:OBJECT form; nanohubmcp "
                                "serves the module-level `server` of srv.py: give srv.py\n")
