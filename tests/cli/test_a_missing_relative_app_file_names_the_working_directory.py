"""``nanohubmcp run APP`` with a relative APP that is not there names the working directory it was looked
for in and asks for an absolute path: a desktop client starts the server in a directory of its own (often
``/``), where a trial's hand-written entry ``run examples/simple/start_mcp.py`` failed with only
"does not exist". An absolute path that is not there is said as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(app: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "nanohubmcp", "run", app, "--transport", "stdio"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_a_relative_app_file_not_there_names_the_working_directory(tmp_path: Path) -> None:
    done = run("examples/simple/start_mcp.py", tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (f"nanohubmcp run: error: app file 'examples/simple/start_mcp.py' does not exist "
                           f"(relative to {tmp_path}, the working directory: give an absolute path)\n")


def test_an_absolute_app_file_not_there_is_said_as_it_was(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.py"
    done = run(str(missing), tmp_path)
    assert done.returncode == 1
    assert done.stderr == f"nanohubmcp run: error: app file '{missing}' does not exist\n"
