"""A child forked from a kernel that serves (a ``processes`` job's process, a pool's worker) starts with no server
for its exit to stop: should it run ``atexit`` (it ends by ``sys.exit``, not ``os._exit``), the kernel's exit hook
(:mod:`nanohubmcp.jupyter.kernel_exit`) stops nothing there. Before, the child inherited the kernel's list and
called each server's stop: a stop that is the kernel's to make, run in a process that does not serve (a real
server's stop waited there for a server thread the child does not have).

Real: a Python process serving a real ``MCPServer`` registered as a notebook's is, a real ``os.fork``, the child's
own interpreter exit (its ``atexit`` handlers), then the parent's; each stop notes the pid that ran it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="a fork")

SCRIPT = r'''
import json, os, sys, time, urllib.request
from nanohubmcp import MCPServer
from nanohubmcp.jupyter import kernel_exit

notes = sys.argv[1]
server = MCPServer("forked")

@server.tool()
def ping() -> str:
    """Pong."""
    return "pong"

server.start(port=0, quiet=True, token="")

def stop(within):
    with open(notes, "a") as out:
        out.write(json.dumps({"pid": os.getpid()}) + "\n")
    server.stop(within=within)

kernel_exit.stop_at_exit(server, stop)
pid = os.fork()
if pid == 0:
    sys.exit(0)  # the child's interpreter exit: its atexit handlers run
begun = time.monotonic()
os.waitpid(pid, 0)
took = time.monotonic() - begun
with urllib.request.urlopen(server.url + "healthz", timeout=30) as answer:  # still serving
    status = answer.status
print(json.dumps({"parent": os.getpid(), "child": pid, "child_exit_s": took, "health": status}))
'''


@pytest.mark.timeout(120)
def test_a_forked_childs_exit_stops_none_of_the_parents_servers(tmp_path: Path) -> None:
    notes = tmp_path / "stops.jsonl"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(notes)], capture_output=True, text=True, timeout=90,
                          env={**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")})
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["health"] == 200
    stops = [json.loads(line)["pid"] for line in notes.read_text().splitlines()]
    assert stops == [said["parent"]], f"stopped by {stops} (the child is {said['child']})"  # the parent's exit only
    assert said["child_exit_s"] < 5, said
