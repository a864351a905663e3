"""A tool's argument check that must first load something slow (pint's unit registry, the first call with
units in a process) is made again once it loaded: the wait is no failure and leaves no ERROR
``validate_arguments`` span — only the check made then does (an ERROR when it refuses). Run in a process of
its own, so pint's registry is not loaded yet.

Found with trial39 R5's fix (every Rappture call checked before its run): the first call with units in a
process left two ERROR ``validate_arguments`` spans, one of them the wait.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FERMI = Path(__file__).resolve().parents[2] / "examples" / "rappture" / "fermi" / "tool.xml"

SCRIPT = """
import json, sys
import otel_sdk
import httpx
from support import serve
from nanohubmcp import MCPServer
from nanohubmcp.server.wire import trace_context

trace_context.STEP_MIN_SECONDS = 0.0
server = MCPServer("fermi-traced", state_dir=sys.argv[2])
server.add_rappture_tool(sys.argv[1], rappture="")
with serve(server) as url:
    for given in ("3 eV", "400 K"):
        answer = httpx.post(url + "tools/fermi", json={"temperature": given}, timeout=60,
                            headers={"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01"})
        print(answer.status_code)
print(json.dumps([(s["name"], s["status"]) for s in otel_sdk.finished() if s["name"].startswith("validate")]))
"""


@pytest.mark.timeout(120)
def test_the_first_check_with_units_leaves_one_span(tmp_path: Path) -> None:
    pytest.importorskip("pint")
    tests = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(FERMI), str(tmp_path / "state")], capture_output=True,
                          text=True, timeout=100, cwd=Path.cwd(),
                          env={**os.environ, "PYTHONPATH": f"{tests}:{tests / 'tracing'}"})
    assert done.returncode == 0, done.stderr
    codes_and_spans = done.stdout.split()
    assert codes_and_spans[:2] == ["400", "200"], done.stdout
    assert done.stdout.strip().splitlines()[-1] == (
        '[["validate_arguments fermi", "ERROR"], ["validate_arguments fermi", "UNSET"]]')
