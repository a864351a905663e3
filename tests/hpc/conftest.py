"""Fixtures of the batch-executor tests: a real one-machine Slurm cluster, and the stand-in for
nanoHUB's ``submit`` (``tests/hpc/standin/submit``).

The cluster is started by ``scripts/slurm-single-node`` (munged, MariaDB + slurmdbd, slurmctld,
slurmd; a running one is reused). Its packages come from ``scripts/install-test-system-deps``:
without them (or without root) the Slurm tests are skipped on a developer machine and fail under
``CI=true``, so a missing install step cannot pass as green.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
STANDIN_BIN = Path(__file__).resolve().parent / "standin"


@pytest.fixture(scope="session")
def slurm_cluster() -> str:
    """Start (or reuse) the single-node cluster; returns the node's name."""
    try:
        done = subprocess.run(
            [str(REPO / "scripts" / "slurm-single-node")], capture_output=True, text=True, timeout=300, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        done = subprocess.CompletedProcess([], 1, "", str(exc))
    if done.returncode != 0:
        message = f"no single-node Slurm here (scripts/slurm-single-node exited {done.returncode}): {done.stderr}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    node = subprocess.run(["sinfo", "-h", "-N", "-o", "%N"], capture_output=True, text=True, timeout=30, check=True)
    return node.stdout.split()[0]


@pytest.fixture
def standin_submit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Put the stand-in ``submit`` first on PATH (for the server and the processes it starts);
    yields the folder where the stand-in logs each invocation's arguments."""
    log_dir = tmp_path / "submit-invocations"
    log_dir.mkdir()
    monkeypatch.setenv("PATH", f"{STANDIN_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("SUBMIT_STANDIN_LOG", str(log_dir))
    return log_dir
