"""``nanohubmcp run APP --workers 2``: a worker killed with SIGKILL during a Rappture run (the OOM killer)
leaves its program running, reparented, with no time limit. The workers' parent, which starts the worker
again, first kills that program and removes its run folder (the driver with the caller's inputs).

Found by a fresh-user trial (trial39 R11): the program ran on past its limit, and its folder stayed, until
some later process registered a Rappture tool; the restarted worker did neither. Real processes: a
redis-server, the server's parent and workers, a real SIGKILL; every wait is for a condition.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from rappture.test_a_killed_servers_program_is_stopped_at_the_next_start import PROGRAM, TOOL, running
from redis_server import RedisServer, free_port
from support import wait_until

pytestmark = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="found through /proc (Linux)")

APP = """import sys
from nanohubmcp import MCPServer

server = MCPServer("stuck-workers", job_store="memory")
server.add_rappture_tool({tool!r}, rappture="")
"""


def parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rfind(")") + 2 :].split()[1])


@pytest.mark.timeout(120)
def test_the_parent_kills_the_program_of_a_worker_killed_mid_run(redis_server: RedisServer, tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    tool = tmp_path / "tool"
    tool.mkdir()
    (tool / "tool.xml").write_text(TOOL)
    (tool / "stuck.py").write_text(PROGRAM)
    app = tmp_path / "app.py"
    app.write_text(APP.format(tool=str(tool / "tool.xml")))
    port = free_port()
    env = {**os.environ, "TMPDIR": str(tmp), "MCP_TOKEN": "", "NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "nanohubmcp", "run", str(app), "--port", str(port),
                                   "--workers", "2", "--state-url", redis_server.url],
                                  stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                  start_new_session=True)
    program = 0
    try:
        url = f"http://127.0.0.1:{port}/tools/stuck"
        wait_until(lambda: server.poll() is None and b"MCP Server" in log.read_bytes(), "the banner")

        def call() -> None:
            with contextlib.suppress(httpx.HTTPError):  # (the worker serving it dies)
                httpx.post(url, json={"title": "hang"}, timeout=60)

        threading.Thread(target=call, daemon=True).start()
        wait_until(lambda: next(tmp.glob("nanohubmcp-rappture-*/rappture-stuck-*/pid"), None), "the run")
        pid_file = next(tmp.glob("nanohubmcp-rappture-*/rappture-stuck-*/pid"))
        wait_until(lambda: pid_file.read_text(), "the program's pid")
        program = int(pid_file.read_text())
        worker = parent_of(program)
        assert worker != server.pid
        os.kill(worker, signal.SIGKILL)
        wait_until(lambda: f"(pid {worker}) killed by SIGKILL; restarted" in log.read_text(), "the restart")
        wait_until(lambda: not running(program), "the worker's program to be killed", timeout=15)  # (it ran on)
        wait_until(lambda: not pid_file.parent.parent.exists(), "the dead worker's run folder to go")
    finally:
        (tool / "stop").write_text("")
        server.send_signal(signal.SIGTERM)
        server.wait(30)
        if program and running(program):
            os.kill(program, signal.SIGKILL)
