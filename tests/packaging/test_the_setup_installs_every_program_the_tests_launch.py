"""``scripts/setup`` (the README's test command runs it first) installs every console script the tests launch
from the environment, so a fresh machine does not fail where a developer's machine had it from elsewhere
(``jupyter-lab`` came only with the ``lab`` extra, which the set-up did not install)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHED = re.compile(r'bin_path\("([A-Za-z0-9_.-]+)"\)')


def launched_programs() -> set[str]:
    return {name for path in (ROOT / "tests").rglob("*.py") for name in LAUNCHED.findall(path.read_text())}


def test_the_setup_installs_the_lab_extra() -> None:
    setup = (ROOT / "scripts" / "setup").read_text()
    lab_extra = r"pip install --quiet (?:--no-compile )?-e '\.\[[^\]]*\blab\b"
    assert re.search(lab_extra, setup), "scripts/setup must install the lab extra"


@pytest.mark.skipif(sys.prefix == sys.base_prefix and not os.environ.get("CI"), reason="not in the set-up's venv")
def test_every_program_the_tests_launch_is_in_this_environment() -> None:
    programs = launched_programs()
    assert "jupyter-lab" in programs
    missing = sorted(name for name in programs if not (Path(sys.executable).parent / name).exists())
    assert not missing, f"the tests launch {missing}, which scripts/setup did not install"
