"""A Rappture server killed with SIGKILL during a run leaves its program running, reparented, with no
time limit, in the folder the next server removes (trial34 X9). The next server that registers a
Rappture tool kills it before removing the folder — only it: a process qualifies when it is in the
process group the run recorded *and* its working directory is in that run's folder, so a process
with the recorded group id elsewhere, or in the folder under another group, is left alone.

Real server processes (``TMPDIR`` a folder of the test's), a real SIGKILL, real unrelated processes;
every wait is for a condition.
"""

from __future__ import annotations

import json
import signal
import subprocess
import urllib.request
from pathlib import Path

import pytest
from support import running, script_server, wait_until
from swept_folders import SLEEPER

from nanohubmcp.sources.run_folders import host_name

pytestmark = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="found through /proc (Linux)")

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>stuck</id><command>python @tool/stuck.py @driver</command><limits><cputime>600</cputime></limits></tool>
  <input><string id="title"><default>none</default></string></input>
</run>
"""

# Runs on after its server is gone, until the test says stop (so nothing outlives the test either way).
PROGRAM = """import os, sys, time
with open("pid", "w") as f:
    f.write(str(os.getpid()))
while not os.path.exists(os.path.join(os.path.dirname(sys.argv[0]), "stop")):
    time.sleep(0.05)
"""

SCRIPT = """import sys
from nanohubmcp import MCPServer

server = MCPServer("stuck", job_store="memory")
server.add_rappture_tool(sys.argv[1], rappture="")
server.run(host="127.0.0.1", port=0)
"""

@pytest.mark.timeout(180)
def test_the_next_server_kills_the_program_a_killed_server_left_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    tool = tmp_path / "tool"
    tool.mkdir()
    (tool / "tool.xml").write_text(TOOL)
    (tool / "stuck.py").write_text(PROGRAM)
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    others: list[subprocess.Popen[bytes]] = []
    try:
        with script_server(SCRIPT, str(tool / "tool.xml"), directory=tmp_path / "a") as first:
            request = urllib.request.Request(f"{first.url}tools/stuck", data=json.dumps({"title": "hang"}).encode(),
                                             headers={"Content-Type": "application/json"}, method="POST")
            with urllib.request.urlopen(request, timeout=30) as answer:
                assert answer.status == 202
            pid_file = wait_until(lambda: next(tmp.glob("nanohubmcp-rappture-*/rappture-stuck-*/pid"), None), "the run")
            program = int(wait_until(lambda: pid_file.read_text(), "the program's pid"))
            first.process.send_signal(signal.SIGKILL)
            first.process.wait(30)
        folder = pid_file.parent.parent
        assert running(program)  # an orphan now, with nothing to stop it

        # Another dead server's folder (its pid: the killed server's, free now), with a run whose recorded
        # group is an unrelated process working elsewhere, and an unrelated process working in that run.
        decoy_run = tmp / f"nanohubmcp-rappture-{host_name()}-{first.process.pid}-decoy123" / "rappture-stuck-decoy123"
        decoy_run.mkdir(parents=True)
        elsewhere = subprocess.Popen(SLEEPER, cwd=tmp_path, start_new_session=True)
        inside = subprocess.Popen(SLEEPER, cwd=decoy_run, start_new_session=True)
        others += [elsewhere, inside]
        (decoy_run.parent / "rappture-stuck-decoy123.group").write_text(str(elsewhere.pid))

        with script_server(SCRIPT, str(tool / "tool.xml"), directory=tmp_path / "b"):
            wait_until(lambda: not running(program), "the orphan program to be killed", 15)
            assert not folder.exists()
            assert not decoy_run.parent.exists()
            assert running(elsewhere.pid)
            assert running(inside.pid)
    finally:
        (tool / "stop").write_text("")  # the program ends by itself if it was not killed
        for other in others:
            other.kill()
            other.wait(30)
