"""mypy finds no error in ``nanohubmcp/`` with the configuration in ``pyproject.toml``
(every function annotated, bodies checked, unused ``type: ignore`` comments reported), and the package ships
``py.typed`` so users' type checkers read its annotations (PEP 561).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(600)  # a clean clone has no mypy cache: ~2 min of CPU for the whole package, and the suite's
def test_mypy_finds_no_error_in_the_package() -> None:  # workers share the cores (CI of 2026-12-07: 121 s, cut at 120)
    done = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found"), done.stdout


def test_the_package_says_it_is_typed() -> None:
    assert (ROOT / "nanohubmcp" / "py.typed").is_file()
