"""Fixtures of the Rappture tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from nanohubmcp.sources.rappture.execute import COMPAT_PATH

HERE = Path(__file__).parent


@pytest.fixture
def hub_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH with the stand-in ``rappture`` and ``python``/``python3`` (a hub has them), and Rappture's Python
    package where a hub installs it (here: this package's compatible one)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rappture").symlink_to(HERE / "standin" / "rappture")
    (bin_dir / "python").symlink_to(sys.executable)
    (bin_dir / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", str(COMPAT_PATH))
    return bin_dir / "rappture"
