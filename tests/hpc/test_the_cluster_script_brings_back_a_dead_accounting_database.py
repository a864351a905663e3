"""``scripts/slurm-single-node`` starts MariaDB (Slurm's accounting database) in a session of its
own, so that killing the process group that asked for the cluster does not take it down.

mysqld_safe stays in its caller's process group. When a test run that had started the cluster was
killed with its group, MariaDB went with it; slurmdbd stayed up, jobs still ran, and every
``sacct`` of the runs that followed failed (the CI run of 2026-12-03 10:10 lost three Slurm tests so).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "slurm-single-node"


def sacct_answers() -> bool:
    done = subprocess.run(["sacct", "-n", "-X", "-S", "now-1minutes"], capture_output=True, timeout=30, check=False)
    return done.returncode == 0


def pids(name: str) -> list[int]:
    found = subprocess.run(["pgrep", "-x", name], capture_output=True, text=True, check=False).stdout.split()
    return [int(pid) for pid in found]


def test_killing_the_group_that_started_the_cluster_leaves_the_database_up(slurm_cluster: str) -> None:
    for pid in pids("mysqld_safe") + pids("mariadbd"):  # the database and its guard gone
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while pids("mariadbd") or sacct_answers():
        assert time.monotonic() < deadline, "MariaDB did not go away, or sacct answers without it"
        time.sleep(0.1)
    caller = subprocess.Popen([str(SCRIPT)], start_new_session=True, stderr=subprocess.PIPE, text=True)
    _, stderr = caller.communicate(timeout=300)
    assert caller.returncode == 0, stderr
    started = pids("mariadbd")
    assert started
    assert all(os.getpgid(pid) != caller.pid for pid in started), "MariaDB is in its caller's group"
    with contextlib.suppress(ProcessLookupError):  # nothing of the caller's left in its group
        os.killpg(caller.pid, signal.SIGKILL)  # the caller's whole group, as `timeout` or a job kill does
    assert sacct_answers(), "sacct fails: the accounting database went down with its caller's group"
    assert pids("mariadbd") == started
