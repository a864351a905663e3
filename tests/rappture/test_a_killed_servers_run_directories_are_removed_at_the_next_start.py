"""A Rappture server killed with SIGKILL during a run leaves its run directory (the driver, with the
call's inputs, and the program's log); the next Rappture server to start removes it (trial28 T7: a
``/tmp/rappture-<name>-*`` directory stayed for good).

Each process keeps its runs under a parent of its own in the temporary directory
(``nanohubmcp-rappture-<host>-<pid>-*``) and holds a lock in it while it lives; a starting server
removes the parents whose process is gone. A running server's runs, and anything else in the
temporary directory, are left alone. Real server processes (``TMPDIR`` a folder of the test's),
a real SIGKILL; every wait is for a condition.
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from support import script_server

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>slow</id><command>python @tool/slow.py @driver</command><limits><cputime>600</cputime></limits></tool>
  <input><string id="secret"><default>none</default></string></input>
</run>
"""

# Runs until its server is gone (its parent changes), then exits: nothing outlives the test.
PROGRAM = """import os, sys, time
parent = os.getppid()
with open("pid", "w") as f:
    f.write(str(os.getpid()))
while os.getppid() == parent and not os.path.exists(os.path.join(os.path.dirname(sys.argv[0]), "stop")):
    time.sleep(0.05)
"""

T = TypeVar("T")
OTHERS = ("rappture-slow-abcd1234", "nanohubmcp-rappture-1-abcd1234", "unrelated")

SCRIPT = """import sys
from nanohubmcp import MCPServer

server = MCPServer("slow", job_store="memory")
server.add_rappture_tool(sys.argv[1], rappture="")
server.run(host="127.0.0.1", port=0)
"""


def wait_for(condition: Callable[[], T], what: str, seconds: float = 60.0) -> T:
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, f"waited {seconds:g} s for {what}"
        time.sleep(0.05)
    return found


def start_run(url: str, secret: str) -> None:
    request = urllib.request.Request(f"{url}tools/slow", data=json.dumps({"secret": secret}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 202  # a long tool runs as a job


def drivers(tmp: Path) -> list[Path]:
    return sorted(p for p in tmp.rglob("rappture-slow-*/driver.xml") if p.parent.name not in OTHERS)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.timeout(180)
def test_the_next_server_removes_what_a_killed_one_left_and_only_that(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))  # the servers' temporary directory
    tool = tmp_path / "tool"
    tool.mkdir()
    (tool / "tool.xml").write_text(TOOL)
    (tool / "slow.py").write_text(PROGRAM)
    others = [tmp / name for name in OTHERS]
    for other in others:  # an earlier version's run directory, one of pid 1 (running), another's
        other.mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()

    with script_server(SCRIPT, str(tool / "tool.xml"), directory=tmp_path / "a") as first:
        start_run(first.url, "first-secret")
        [left] = wait_for(lambda: drivers(tmp), "the first run's driver")
        program = int(wait_for(lambda: (left.parent / "pid").exists() and (left.parent / "pid").read_text(),
                               "the program's pid"))
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(30)
        wait_for(lambda: not alive(program), "the program to end with its server")
    assert "first-secret" in left.read_text()  # left behind, inputs and all: what a kill leaves

    with script_server(SCRIPT, str(tool / "tool.xml"), directory=tmp_path / "b") as second:
        assert not left.parent.exists()  # removed when the second server registered its tool
        assert drivers(tmp) == []
        assert all(other.exists() for other in others)
        start_run(second.url, "second-secret")
        [running] = wait_for(lambda: drivers(tmp), "the second run's driver")
        with script_server(SCRIPT, str(tool / "tool.xml"), directory=tmp_path / "c"):
            assert running.exists()  # a live server's run is not swept
        (tool / "stop").write_text("")  # the program ends; the job ends; its directory goes
        wait_for(lambda: not running.parent.exists(), "the second run's directory to be removed")
        second.process.send_signal(signal.SIGTERM)
        second.process.wait(30)
    assert sorted(p.name for p in tmp.iterdir()) == sorted(OTHERS)  # the second's parent went at its exit
