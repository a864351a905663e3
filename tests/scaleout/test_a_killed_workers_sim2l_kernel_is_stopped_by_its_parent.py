"""``nanohubmcp sim2l NB.ipynb --workers 2``: a worker killed with SIGKILL during a Sim2L run (the OOM killer)
leaves what the notebook's cell started running, reparented, with no time limit (the kernel itself ends once
its parent is gone). The workers' parent, which starts the worker again, first kills it and removes the dead
worker's scratch folder (the notebook with the caller's inputs).

Found by a fresh-user trial (orphan2): ``subprocess.run(['sleep', '107'])`` in the computing cell lived on with
PPID 1 after "worker 0 (pid N) killed by SIGKILL; restarted". Real processes: a redis-server, the server's
parent and workers, a real kernel, a real SIGKILL; every wait is for a condition.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from redis_server import RedisServer
from sim2l.test_a_killed_servers_sim2l_kernel_is_stopped_at_the_next_start import (
    call_in_background,
    noted,
    parent_of,
    running,
    scratch_folders,
    sim2l_server,
    stuck_run,
)
from support import wait_until

pytestmark = [pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="found through /proc (Linux)"),
              pytest.mark.slow]


@pytest.mark.timeout(300)
def test_the_parent_kills_what_a_killed_workers_notebook_started(redis_server: RedisServer, tmp_path: Path) -> None:
    with stuck_run(tmp_path) as (notebook, state, log), sim2l_server(
        notebook, state, log, "--workers", "2", "--state-url", redis_server.url
    ) as (server, port):
        call_in_background(port)
        kernel, program = noted(tmp_path / "kernel"), noted(tmp_path / "program")
        worker = parent_of(kernel)
        assert worker != server.pid
        run = Path(os.readlink(f"/proc/{kernel}/cwd"))  # (the run's scratch folder)
        os.kill(worker, signal.SIGKILL)
        wait_until(lambda: f"(pid {worker}) killed by SIGKILL; restarted" in log.read_text(), "the restart")
        wait_until(lambda: not running(program), "the parent to kill the program", timeout=15)  # (it ran on)
        wait_until(lambda: not run.exists(), "the dead worker's scratch folder to go")
        assert not [folder for folder in scratch_folders(state) if f"-{worker}-" in folder.name]
        wait_until(lambda: not running(kernel), "the kernel to end")
