"""An example given a port it cannot serve on (``--port 99999``, ``MCP_PORT=abc``) exits 2 with the
usage and one line saying what is accepted, as ``nanohubmcp run`` does; it was a ConfigurationError
traceback (trial12 LOW-1). ``--port`` wins over a bad ``$MCP_PORT``, which is then not read."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from example_process import EXAMPLES

NAMES = ["simple", "data_analysis", "simulator", "apps"]


def start(name: str, *args: str, port_variable: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MCP_PORT"}
    if port_variable is not None:
        env["MCP_PORT"] = port_variable
    return subprocess.run([sys.executable, str(EXAMPLES / name / "start_mcp.py"), *args], env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("args", "port_variable", "message"),
    [
        (["--port", "99999"], None,
         "argument --port: must be a whole number between 0 and 65535 (0: any free port), not '99999'"),
        (["--port", "http"], None,
         "argument --port: must be a whole number between 0 and 65535 (0: any free port), not 'http'"),
        ([], "abc", "argument --port: $MCP_PORT must be a whole number between 0 and 65535 (0: any free port), "
                    "not 'abc'"),
        ([], "70000",
         "argument --port: $MCP_PORT must be a whole number between 0 and 65535 (0: any free port), not '70000'"),
    ],
    ids=["argument-range", "argument-text", "variable-text", "variable-range"],
)
def test_a_bad_port_exits_2_with_one_line(name: str, args: list[str], port_variable: str | None,
                                         message: str) -> None:
    done = start(name, *args, port_variable=port_variable)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("usage: start_mcp.py "), done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"start_mcp.py: error: {message}"
    assert "Traceback" not in done.stderr
