"""The magics outside a kernel: a terminal-style IPython shell (no event loop of its own) serves cells too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import FAULTHANDLER

pytestmark = pytest.mark.slow

SCRIPT = r"""
import json, urllib.request
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
def ok(code):
    result = shell.run_cell(code)
    assert result.success, (code, result.error_before_exec or result.error_in_exec)
    return result.result

ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
ok("%%mcp_tool\ndef add(a: int, b: int) -> int:\n    return a + b\n")
ok("%%mcp_tool --main\ndef where() -> str:\n    import threading\n"
   "    return threading.current_thread().name\n")
ok("%%mcp_tool\nasync def later(x: int) -> int:\n    import asyncio\n"
   "    await asyncio.sleep(0)\n    return x\n")
base = ok("%mcp url")[: -len("mcp")]

def rest(name, arguments):
    request = urllib.request.Request(base + "tools/" + name, data=json.dumps(arguments).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["result"]

results = {"add": rest("add", {"a": 2, "b": 3}), "where": rest("where", {}), "later": rest("later", {"x": 7})}
ok("%unload_ext nanohubmcp")
print(json.dumps(results))
"""


def test_cells_serve_from_a_plain_ipython_shell(tmp_path: Path) -> None:
    env = {"IPYTHONDIR": str(tmp_path), "PATH": "/usr/bin:/bin", "MCP_TOKEN": "", **FAULTHANDLER}  # no token
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    # No kernel loop to go to: --main runs on a worker, async def on the server's own loop.
    assert results["add"] == "5"  # REST results are the text content, as in the 0.4 API
    assert results["where"].startswith("nanohubmcp-worker")
    assert results["later"] == "7"
