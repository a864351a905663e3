"""scripts/demo_client.py shortens long arrays and texts in its printout (trial55 F11: against the fermi
Rappture tool it printed 494 lines, every x and y of the 201-point curve in the text block and again in
structuredContent, and the PNG's base64), keeping the first items and saying how many there are."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from example_process import ROOT, stop, wait_for_banner

pytestmark = pytest.mark.slow

CLIENT = ROOT / "scripts" / "demo_client.py"
FERMI = ROOT / "examples" / "rappture" / "fermi" / "tool.xml"


def test_the_fermi_tools_201_point_curve_is_printed_shortened(tmp_path: Path) -> None:
    environment = {key: value for key, value in os.environ.items() if key not in ("MCP_TOKEN", "MCP_PORT")}
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-u", "-m", "nanohubmcp", "rappture", str(FERMI), "--host", "127.0.0.1", "--port", "0"],
            cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=environment,
        )  # fmt: skip
    try:
        port = wait_for_banner(server, log)["port"]
        done = subprocess.run(
            [sys.executable, str(CLIENT), f"http://127.0.0.1:{port}/mcp", "--tool", "fermi", "--timeout", "60"],
            capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL, env=environment,
        )  # fmt: skip
    finally:
        stop(server)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    call = done.stdout.split("=== 3. tools/call", 1)[1].split("=== 4.", 1)[0]
    assert "... (201 numbers)]" in call, call
    assert call.count("... (201 numbers)") >= 2, call  # x and y of the curve
    assert "characters)" in call  # the long text block (and the image's base64) cut, with their length
    assert len(lines) < 120, f"{len(lines)} lines:\n{done.stdout}"
    assert max(len(line) for line in lines) < 300, max(lines, key=len)
    assert "done: every step succeeded" in done.stdout
