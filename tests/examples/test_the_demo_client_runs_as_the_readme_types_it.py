"""``scripts/demo_client.py URL`` as the README and the script page type it (trial58 F10): the file is executable,
so a shell ran it as a shell script (``DEFAULT_URL: command not found``), and a Python outside the checkout's
environment failed with ``No module named 'nanohubmcp'``. It now starts with ``#!/usr/bin/env python3`` and, run by
a Python that cannot import the package, goes on with the checkout's ``.venv/bin/python``; a copy away from any
checkout says how to run it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "demo_client.py"
BARE = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}  # no venv on PATH, no PYTHONPATH

pytestmark = pytest.mark.skipif(shutil.which("python3", path=BARE["PATH"]) is None,
                                reason="no python3 on /usr/bin:/bin to play the system's Python")


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=BARE, capture_output=True, text=True, timeout=60, check=False)


def test_typed_as_a_command_it_runs_with_the_checkouts_environment() -> None:
    if not (ROOT / ".venv" / "bin" / "python").exists():
        pytest.skip("this checkout has no .venv (scripts/setup makes it)")
    for command in (["scripts/demo_client.py", "--help"], ["python3", "scripts/demo_client.py", "--help"]):
        done = run(command, ROOT)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        assert done.stdout.startswith("usage: demo_client.py"), command


def test_a_copy_away_from_a_checkout_says_how_to_run_it(tmp_path: Path) -> None:
    copy = tmp_path / "demo_client.py"
    shutil.copy(SCRIPT, copy)
    done = run(["python3", str(copy), "--help"], tmp_path)
    if done.returncode == 0:  # this system's python3 has nanohub-mcp installed: nothing to say
        pytest.skip("the system's python3 imports nanohubmcp")
    assert done.returncode == 1
    assert ".venv/bin/python scripts/demo_client.py URL" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_script_is_executable_with_a_python_shebang() -> None:
    assert SCRIPT.read_text().startswith("#!/usr/bin/env python3\n")
    assert os.access(SCRIPT, os.X_OK)
