"""``nanohubmcp run TARGET`` with a TARGET it cannot serve says why in one line (trial12 LOW-7): a
directory or a notebook is a usage error (exit 2, the subcommand's usage, naming the command that
takes it); a file that fails to import gives the cause and where (exit 1), not the traceback; a
``server`` that is not an MCPServer says what it is (exit 1). ``server-json`` imports its APP the same way.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def nanohubmcp(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nanohubmcp", *arguments], cwd=cwd, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, check=False)  # fmt: skip


NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("tools", "tools is a directory: give the app's Python file (tools/start_mcp.py?)"),
        ("empty", "empty is a directory: give the app's Python file, the .py that defines `server = MCPServer(...)`"),
        ("analysis.ipynb", "analysis.ipynb is a notebook: export it to a script first (nanohubmcp export "
                           "analysis.ipynb writes start_mcp.py; give that), or serve a Sim2L notebook with "
                           "nanohubmcp sim2l analysis.ipynb"),
        ("tool.xml", "tool.xml is not a Python file: serve a Rappture tool.xml with nanohubmcp rappture tool.xml"),
        ("notes.txt", "notes.txt is not a Python file: give the app's .py file"),
    ],
    ids=["directory-with-start_mcp", "directory", "notebook", "rappture-xml", "text"],
)
def test_a_target_of_the_wrong_kind_is_a_usage_error(tmp_path: Path, target: str, message: str) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "start_mcp.py").write_text("server = None\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "analysis.ipynb").write_text(NOTEBOOK)
    (tmp_path / "tool.xml").write_text("<run/>\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    done = nanohubmcp("run", target, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("usage: nanohubmcp run "), done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"nanohubmcp run: error: {message}"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("import math\nimport no_such_module_here\n",
         "importing app.py failed: ModuleNotFoundError: No module named 'no_such_module_here' (app.py, line 2; "
         f"is it installed for {sys.executable}?); python app.py shows the traceback"),
        ("x = 1\ny = x / 0\n",
         "importing app.py failed: ZeroDivisionError: division by zero (app.py, line 2); python app.py shows the "
         "traceback"),
        ("from helper import value\n",
         "importing app.py failed: KeyError: 'missing' (helper.py, line 1); python app.py shows the traceback"),
        ("def f(:\n",
         "importing app.py failed: SyntaxError: invalid syntax (app.py, line 1); python app.py shows the traceback"),
        ("server = 42\n", "`server` in app.py is an int, not an MCPServer (e.g. server = MCPServer('name'))"),
    ],
    ids=["missing-module", "exception", "in-a-module-it-imports", "syntax", "not-an-mcpserver"],
)
def test_an_app_that_cannot_be_served_fails_in_one_line(tmp_path: Path, source: str, message: str) -> None:
    (tmp_path / "app.py").write_text(source)
    (tmp_path / "helper.py").write_text("value = {}['missing']\n")
    for command in ("run", "server-json"):
        done = nanohubmcp(command, "app.py", cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        assert done.stderr.strip().splitlines() == [f"nanohubmcp {command}: error: {message}"]
