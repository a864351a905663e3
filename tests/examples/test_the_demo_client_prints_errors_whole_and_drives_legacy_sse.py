"""scripts/demo_client.py prints an error result's text whole (trial57 F8: cut to 160 characters, it hid the
examples saying how to write the argument) and drives the legacy SSE URL every banner prints (trial57 F9: it
made ``.../sse`` into ``.../sse/mcp`` and failed with a bare "Not Found")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from example_process import ROOT, run_example, stop, wait_for_banner

pytestmark = pytest.mark.slow

CLIENT = ROOT / "scripts" / "demo_client.py"
FERMI = ROOT / "examples" / "rappture" / "fermi" / "tool.xml"


def environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in ("MCP_TOKEN", "MCP_PORT")}


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CLIENT), *args, "--timeout", "60"], capture_output=True, text=True,
                          timeout=90, stdin=subprocess.DEVNULL, env=environment())


def test_an_error_results_text_is_printed_whole(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-u", "-m", "nanohubmcp", "rappture", str(FERMI), "--host", "127.0.0.1", "--port", "0"],
            cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=environment(),
        )  # fmt: skip
    try:
        port = wait_for_banner(server, log)["port"]
        done = demo(f"http://127.0.0.1:{port}/mcp", "--tool", "fermi", "--arguments", '{"temperature": "hot"}')
    finally:
        stop(server)
    assert done.returncode == 1, done.stdout + done.stderr
    call = done.stdout.split("=== 3. tools/call", 1)[1]
    text = call.split('"text": ', 1)[1].splitlines()[0]
    assert "does not start with a number" in text, call
    assert "e.g." in text, call  # the examples of how to write it: past the first 160 characters
    assert "characters)" not in text, call
    assert "DEMO FAILED: tool 'fermi' reported an error" in done.stderr


def test_the_legacy_sse_url_is_driven_over_sse() -> None:
    with run_example("simple") as example:
        done = demo(example.url + "sse", "--tool", "add", "--arguments", '{"a": 2, "b": 3}')
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"connect to {example.url}sse (legacy SSE)" in done.stdout
    assert '"text": "5.0"' in done.stdout
    assert "done: every step succeeded" in done.stdout
