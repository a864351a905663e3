"""Each Rappture run left its program's two output pipes for the garbage collector to close: a
ResourceWarning per run under ``python -X dev`` or ``-W always`` (trial34 X12). A real run in a
Python of its own, ResourceWarning an error there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FERMI = Path(__file__).parent / "tools" / "fermi"

SCRIPT = """import gc, sys
from nanohubmcp.sources.rappture import load_rappture_tool

tool = load_rappture_tool(sys.argv[1], rappture="")
for _ in range(2):
    tool.run({})
gc.collect()
print("ran")
"""


@pytest.mark.timeout(120)
def test_a_run_under_resource_warnings_as_errors_emits_none(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-c", SCRIPT, str(FERMI)],
                          capture_output=True, text=True, timeout=100, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ran"
    assert "ResourceWarning" not in done.stderr, done.stderr
