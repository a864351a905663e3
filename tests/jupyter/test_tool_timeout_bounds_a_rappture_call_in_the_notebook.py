"""trial51 F15: ``%config NanohubMCP.tool_timeout`` bounded only ``%%mcp_tool`` functions (their cell wrappers
timed them); a ``%mcp rappture`` tool ran on past it (an 8 s run answered OK at a 3 s limit), while the exported
script, whose ``MCPServer(tool_timeout=...)`` the server's core enforces, cut it. The core enforces it in the
notebook too now: the Rappture call is answered at the limit saying its run was stopped (it is: the program and
its child are gone), REST with 504, not 500; a plain sync function still says it was abandoned."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from json_posts import post_json
from kernels import LiveKernel, run_async, server_url
from support import mcp_client, running

pytestmark = pytest.mark.slow
pytest.importorskip("pint")

FERMI = Path(__file__).parents[1] / "rappture" / "tools" / "fermi"
NAP = "%%mcp_tool\ndef nap(seconds: float) -> str:\n    import time\n    time.sleep(seconds)\n    return 'rested'\n"


def test_the_notebooks_tool_timeout_stops_a_rappture_run_and_says_so(kernel: LiveKernel, tmp_path: Path) -> None:
    shutil.copytree(FERMI, tmp_path / "fermi")
    kernel.run_ok("%config NanohubMCP.tool_timeout = 2")
    kernel.run_ok(NAP)
    kernel.run_ok(f"%mcp rappture {tmp_path / 'fermi' / 'tool.xml'} --name fermi --timeout 25")
    url = server_url(kernel)

    async def calls() -> tuple[Any, Any, float]:
        async with mcp_client(url) as client:
            started = time.monotonic()
            fermi = await client.call_tool("fermi", {"mode": "hang"})
            took = time.monotonic() - started
            nap = await client.call_tool("nap", {"seconds": 4})
            return fermi, nap, took

    fermi, nap, took = run_async(calls())
    assert fermi.is_error
    text = fermi.content[0].text
    assert text.startswith("tool 'fermi' did not finish within 2 s (tool_timeout); its run was stopped"), text
    assert "abandoned" not in text
    assert took < 10  # was: the run went on to --timeout (25 s), then answered
    assert nap.is_error
    assert nap.content[0].text.startswith("tool 'nap' did not finish within 2 s (tool_timeout)"), nap
    # the program and its child are stopped with the call
    pids = [int(line.split()[1]) for line in os.popen("pgrep -af fermi.py").read().splitlines()
            if str(tmp_path) in line]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(running(pid) for pid in pids):
        time.sleep(0.1)
    assert not any(running(pid) for pid in pids), pids
    status, body = post_json(url.rsplit("/mcp", 1)[0] + "/tools/fermi", {"mode": "hang"}, 60)
    assert status == 504, (status, body)  # a timeout is no fault of the server: not 500
    assert "its run was stopped" in body["error"]
    kernel.run_ok("%config NanohubMCP.tool_timeout = None")
