"""Fixtures of the sources' tests."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from nanohubmcp.sources.lock_reach import locks_reach_hosts


@pytest.fixture
def programs() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test started (:mod:`swept_folders`): killed and waited for when it ends."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for program in started:
        program.kill()
        program.wait(30)


@pytest.fixture
def lock_reaching_path(tmp_path: Path) -> Path:
    """``tmp_path``, where a lock is seen by every host that sees the folder (a file system whose locks one kernel
    keeps: :func:`~nanohubmcp.sources.lock_reach.locks_reach_hosts`); elsewhere the test is skipped."""
    if not locks_reach_hosts(tmp_path):
        pytest.skip(f"{tmp_path} is not on a file system whose locks one kernel keeps")
    return tmp_path
