"""``scripts/slurm-single-node`` reuses a running cluster at once, however often it is asked (each
test session asks): it must neither restart the daemons nor wait on its own start lock, which the
daemons it started must not hold."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "slurm-single-node"


def daemons() -> str:
    return subprocess.run(
        ["ps", "-o", "pid=,lstart=", "-C", "slurmctld,slurmd,slurmdbd"], capture_output=True, text=True, check=True
    ).stdout


def test_asking_again_reuses_the_cluster_at_once(slurm_cluster: str) -> None:
    before = daemons()
    for _ in range(2):
        done = subprocess.run([str(SCRIPT)], capture_output=True, text=True, timeout=30, check=False)
        assert done.returncode == 0, done.stderr
    assert subprocess.run([str(SCRIPT), "status"], timeout=30, check=False).returncode == 0
    assert daemons() == before
    for pid in before.split()[::6]:  # pid, then the five words of its start time
        held = [Path(f"/proc/{pid}/fd", fd.name).resolve() for fd in Path(f"/proc/{pid}/fd").iterdir()]
        assert Path("/tmp/slurm-single-node.lock") not in held
