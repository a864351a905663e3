"""A Rappture program may start a helper in a session of its own (``setsid``, ``start_new_session=True``):
it is in no process group the run recorded, and works elsewhere than in the run's folder, but it carries
the run's mark (``NANOHUBMCP_RAPPTURE_RUN`` naming the run's directory). It ends with its run: at the
run's time limit, at the server's graceful stop, and — the server killed with SIGKILL — at the next
server's start. A process carrying another run's mark is left alone. (Fresh-user trial 51, F12.)

Real server processes (``TMPDIR`` a folder of the test's), real helpers, real signals; every wait is for a
condition.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from support import running, script_server, wait_until

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="found through /proc (Linux)")

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>detach</id><command>python @tool/detach.py @driver</command>
    <limits><cputime>{cputime}</cputime></limits></tool>
  <input><string id="title"><default>none</default></string></input>
</run>
"""

# Starts a helper in a new session, working in "/", notes its pid, then waits for the test's "stop".
PROGRAM = """import os, subprocess, sys, time
here = os.path.dirname(sys.argv[0])
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], cwd="/", start_new_session=True)
with open(os.path.join(here, "helper.tmp"), "w") as f:
    f.write(str(helper.pid))
os.replace(os.path.join(here, "helper.tmp"), os.path.join(here, "helper"))
while not os.path.exists(os.path.join(here, "stop")):
    time.sleep(0.05)
"""

SCRIPT = """import sys
from nanohubmcp import MCPServer

server = MCPServer("detach", job_store="memory")
server.add_rappture_tool(sys.argv[1], rappture="", **({{"timeout": float(sys.argv[2])}} if len(sys.argv) > 2 else {{}}))
server.run(host="127.0.0.1", port=0)
""".replace("{{", "{").replace("}}", "}")


def tool_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cputime: str = "600") -> tuple[Path, Path]:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    tool = tmp_path / "tool"
    tool.mkdir()
    (tool / "tool.xml").write_text(TOOL.format(cputime=cputime))
    (tool / "detach.py").write_text(PROGRAM)
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    return tool, tmp


def call(url: str, timeout: float = 60) -> int:
    request = urllib.request.Request(f"{url}tools/detach", data=json.dumps({"title": "x"}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def helper_pid(tool: Path) -> int:
    return int(wait_until(lambda: (tool / "helper").exists() and (tool / "helper").read_text(), "the helper's pid"))


def end(tool: Path, *pids: int) -> None:
    (tool / "stop").write_text("")
    for pid in pids:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def other_runs_process(tmp_path: Path) -> subprocess.Popen[bytes]:
    """A process carrying the mark of a run that is not the server's (another folder)."""
    other = tmp_path / "other-run"
    other.mkdir()
    env = {**os.environ, "NANOHUBMCP_RAPPTURE_RUN": str(other.resolve())}
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], env=env, start_new_session=True)


@pytest.mark.timeout(180)
def test_the_time_limit_ends_the_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool, _ = tool_folder(tmp_path, monkeypatch)
    helper = 0
    try:
        with script_server(SCRIPT, str(tool / "tool.xml"), "3", directory=tmp_path / "a") as server:
            assert call(server.url) != 200  # (stopped at its time limit)
            helper = helper_pid(tool)
            wait_until(lambda: not running(helper), "the helper to end with its run", timeout=10)
    finally:
        end(tool, helper)


@pytest.mark.timeout(180)
def test_a_graceful_stop_ends_the_helper_and_no_other_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool, _ = tool_folder(tmp_path, monkeypatch)
    other = other_runs_process(tmp_path)
    helper = 0
    try:
        with script_server(SCRIPT, str(tool / "tool.xml"), directory=tmp_path / "a") as server:
            assert call(server.url) == 202
            helper = helper_pid(tool)
            server.process.send_signal(signal.SIGTERM)
            server.process.wait(60)
        wait_until(lambda: not running(helper), "the helper to end with its server", timeout=10)
        assert running(other.pid)
    finally:
        end(tool, helper)
        other.kill()
        other.wait(30)


@pytest.mark.timeout(180)
def test_the_next_start_ends_a_killed_servers_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool, tmp = tool_folder(tmp_path, monkeypatch)
    other = other_runs_process(tmp_path)
    helper = 0
    try:
        with script_server(SCRIPT, str(tool / "tool.xml"), directory=tmp_path / "a") as first:
            assert call(first.url) == 202
            helper = helper_pid(tool)
            run = next(tmp.glob("nanohubmcp-rappture-*/rappture-detach-*"))
            first.process.send_signal(signal.SIGKILL)
            first.process.wait(30)
        assert running(helper)  # nothing stopped it: the server was killed
        with script_server(SCRIPT, str(tool / "tool.xml"), directory=tmp_path / "b"):
            wait_until(lambda: not running(helper), "the next server to end the helper", timeout=15)
            wait_until(lambda: not run.exists(), "the killed server's run folder to go")
            assert running(other.pid)
    finally:
        end(tool, helper)
        other.kill()
        other.wait(30)
