"""Fixtures of the sources' tests."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest


@pytest.fixture
def programs() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test started (:mod:`swept_folders`): killed and waited for when it ends."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for program in started:
        program.kill()
        program.wait(30)
