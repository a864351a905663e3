"""trial51 F15: a Sim2L call past ``MCPServer(tool_timeout=)`` was answered over REST with 500 and "it was
abandoned and may still be running", though the cancel kills its kernel. It is answered 504 (a timeout, no
server fault) saying its run was stopped, and the cell's process is gone."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from json_posts import post_json
from sim2l.cooling_variant import cooling_variant
from support import running, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.slow


def test_a_sim2l_call_past_tool_timeout_is_504_and_its_run_stopped(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    pids = tmp_path / "pids"
    code = (  # for 17 points: a process of the cell's own, its pid written, then the cell waits for it
        "import subprocess\n"
        "if points == 17:\n"
        "    child = subprocess.Popen(['sleep', '600'])\n"
        f"    open({str(pids)!r}, 'w').write(str(child.pid))\n"
        "    child.wait()\n"
    )
    # 6 s: the kernel's start and the cells before the child's (its pid was written 1.0-1.2 s into the call at a load
    # of 3-4 on two cores; simtool's import, seconds on a busy machine, comes after it)
    server = MCPServer("sim2l-timeout", state_dir=str(tmp_path / "state"), tool_timeout=6)
    server.add_sim2l(str(cooling_variant(tmp_path, code, simtool_late=True)), name="cool")
    with serve(server) as base:
        status, body = post_json(base + "tools/cool", {"points": 17, "rate": 0.02}, 120)
    assert status == 504, (status, body)  # was 500
    assert body["error"].startswith("tool 'cool' did not finish within 6 s (tool_timeout); its run was stopped"), body
    assert "abandoned" not in body["error"]
    child = int(pids.read_text())
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and running(child):
        time.sleep(0.1)
    assert not running(child), f"the cell's process {child} outlived the stopped run"
