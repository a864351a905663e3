"""The measurements that live in their own scripts, run by ``run.py`` with our interpreter.

Each script (``stdio_roundtrip.py``, ``science_results.py``, ``jobs.py``, ``auth_cost.py``) also
runs alone and prints its table; here it is started with ``--json`` and its figures go into the
run's raw data. Each is bounded by a timeout; a failure is recorded, not raised, so one broken
section does not lose the rest of a run.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import env

# section: (script, arguments for a full run, arguments for --quick, timeout s)
SECTIONS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], float]] = {
    "stdio": ("stdio_roundtrip.py", ("--calls", "2000", "--rounds", "3"), ("--calls", "300", "--rounds", "1"), 600),
    "science": ("science_results.py", ("--repeats", "5"), ("--repeats", "2"), 900),
    "jobs": ("jobs.py", ("--jobs", "200"), ("--jobs", "30", "--stored", "10000"), 1200),
    "auth": ("auth_cost.py", ("--verifier-only",), ("--verifier-only", "--rounds", "3", "--calls", "200"), 300),
}


def run(name: str, python: str, peers: str, quick: bool, log: Callable[[str], None]) -> dict[str, Any]:
    """One section's figures (its ``--json`` output), or ``{"error": ...}``."""
    script, full, short, timeout = SECTIONS[name]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{name}.json"
        argv = [python, str(env.BENCH / script), *(short if quick else full)]
        if name == "stdio":
            argv += ["--peers-python", peers]
        argv += ["--json", str(out)]
        t0 = time.perf_counter()
        try:
            done = subprocess.run(argv, cwd=env.REPO, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            log(f"{name}: no answer within {timeout} s")
            return {"error": f"timed out after {timeout} s", "argv": argv[1:]}
        took = round(time.perf_counter() - t0, 1)
        if done.returncode != 0 or not out.exists():
            log(f"{name}: failed (rc {done.returncode}): {done.stderr[-300:]}")
            return {"error": f"rc {done.returncode}: {done.stderr[-600:]}", "argv": argv[1:]}
        data: dict[str, Any] = json.loads(out.read_text())
    data["seconds"], data["command"] = took, " ".join(["python", *argv[1:-2]]).replace(str(env.REPO) + "/", "")
    log(f"{name} done in {took} s")
    return data
