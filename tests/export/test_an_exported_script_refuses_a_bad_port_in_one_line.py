"""A script exported from a notebook, given a port it cannot serve on (``--port 99999``,
``MCP_PORT=abc``), exits 2 with the usage and one line saying what is accepted, as ``nanohubmcp run``
does; it was a ConfigurationError traceback from ``server.run`` (trial12 LOW-1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from nanohubmcp.jupyter.translate import translate

TOOL = "%%mcp_tool\ndef add(a: float, b: float) -> float:\n    \"\"\"Add.\"\"\"\n    return a + b\n"


@pytest.mark.parametrize(
    ("args", "port_variable", "message"),
    [
        (["--port", "99999"], None,
         "argument --port: must be a whole number between 0 and 65535 (0: any free port), not '99999'"),
        (["--port", "-1"], "8000",
         "argument --port: must be a whole number between 0 and 65535 (0: any free port), not '-1'"),
        ([], "abc", "argument --port: $MCP_PORT must be a whole number between 0 and 65535 (0: any free port), "
                    "not 'abc'"),
    ],
    ids=["argument", "argument-over-a-good-variable", "variable"],
)
def test_a_bad_port_exits_2_with_one_line(tmp_path: Path, args: list[str], port_variable: str | None,
                                         message: str) -> None:
    made = nbformat.v4.new_notebook()
    made.cells = [nbformat.v4.new_code_cell("%load_ext nanohubmcp\n%config NanohubMCP.port = 9123"),
                  nbformat.v4.new_code_cell(TOOL)]
    script = tmp_path / "start_mcp.py"
    script.write_text(translate(made, source="adder.ipynb", format_code=False).text)
    env = {k: v for k, v in os.environ.items() if k != "MCP_PORT"}
    if port_variable is not None:
        env["MCP_PORT"] = port_variable
    done = subprocess.run([sys.executable, str(script), *args], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("usage: start_mcp.py "), done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"start_mcp.py: error: {message}"
    assert "Traceback" not in done.stderr
