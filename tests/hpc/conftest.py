"""Fixtures of the batch-executor tests: the stand-in for nanoHUB's ``submit``
(``tests/hpc/standin/submit``). The real one-machine Slurm cluster, ``slurm_cluster``, is a
fixture of ``tests/conftest.py`` (the notebook export tests need it too).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

STANDIN_BIN = Path(__file__).resolve().parent / "standin"


@pytest.fixture
def standin_submit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Put the stand-in ``submit`` first on PATH (for the server and the processes it starts);
    returns the folder where the stand-in logs each invocation's arguments."""
    log_dir = tmp_path / "submit-invocations"
    log_dir.mkdir()
    monkeypatch.setenv("PATH", f"{STANDIN_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("SUBMIT_STANDIN_LOG", str(log_dir))
    return log_dir
