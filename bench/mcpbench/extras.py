"""The measurements that live in their own scripts, run by ``run.py`` with our interpreter.

Each script (``stdio_roundtrip.py``, ``science_results.py``, ``jobs.py``, ``auth_cost.py``,
``hops.py``, ``scaleout.py``, ``rappture_overhead.py``, ``sim2l_overhead.py``, ``hpc_jobs.py``,
``otel_cost.py``) also runs alone and prints its table; here it is started
with ``--json`` (a file, or JSON on its standard output) and its figures go into the run's raw data.
Each is bounded by a timeout; a failure is recorded, not raised, so one broken section does not
lose the rest of a run; a script not in this checkout is recorded as such.
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
    "science": ("science_results.py", ("--repeats", "3"), ("--repeats", "2"), 900),
    "jobs": ("jobs.py", ("--jobs", "60"), ("--jobs", "30", "--stored", "10000"), 1200),
    "auth": ("auth_cost.py", ("--verifier-only",), ("--verifier-only", "--rounds", "3", "--calls", "200"), 300),
    "hops": ("hops.py", ("--rounds", "5"), ("--rounds", "3"), 300),
    "hops-steady": ("hops.py", ("--rounds", "5", "--warm", "10"), ("--rounds", "3", "--warm", "10"), 300),
    "scaleout": (
        "scaleout.py",
        ("--rounds", "3", "--seconds", "6", "--sessions", "1000", "--diagnose", "--one-core", "0"),
        ("--rounds", "1", "--seconds", "2", "--sessions", "200"),
        600,
    ),
    "rappture": ("rappture_overhead.py", ("--rounds", "8"), ("--rounds", "2"), 600),
    "sim2l": ("sim2l_overhead.py", ("--rounds", "3"), ("--rounds", "1"), 900),
    "slurm": ("hpc_jobs.py", ("--jobs", "10"), ("--jobs", "2"), 900),
    "otel": ("otel_cost.py", ("--rounds", "5", "--calls", "1000"), ("--rounds", "2", "--calls", "300"), 600),
}
STDOUT_JSON = {"hops", "hops-steady", "rappture", "sim2l"}  # these print their JSON instead of writing a file


def run(name: str, python: str, peers: str, quick: bool, log: Callable[[str], None]) -> dict[str, Any]:
    """One section's figures (its ``--json`` output), or ``{"error": ...}``."""
    script, full, short, timeout = SECTIONS[name]
    if not (env.BENCH / script).exists():
        log(f"{name}: bench/{script} is not in this checkout")
        return {"error": f"bench/{script} is not on this branch: the feature's cost script has not landed"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{name}.json"
        argv = [python, str(env.BENCH / script), *(short if quick else full)]
        if name == "stdio":
            argv += ["--peers-python", peers]
        argv += ["--json"] if name in STDOUT_JSON else ["--json", str(out)]
        t0 = time.perf_counter()
        try:
            done = subprocess.run(argv, cwd=env.REPO, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            log(f"{name}: no answer within {timeout} s")
            return {"error": f"timed out after {timeout} s", "argv": argv[1:]}
        took = round(time.perf_counter() - t0, 1)
        if done.returncode == 0 and name in STDOUT_JSON:
            text = done.stdout
            out.write_text(text[text.index("{") : text.rindex("}") + 1] if "{" in text else "")
        if done.returncode != 0 or not out.exists() or not out.read_text().strip():
            log(f"{name}: failed (rc {done.returncode}): {done.stderr[-300:]}")
            return {"error": f"rc {done.returncode}: {done.stderr[-600:]}", "argv": argv[1:]}
        data: dict[str, Any] = json.loads(out.read_text())
    shown = argv[1:-1] if name in STDOUT_JSON else argv[1:-2]
    data["seconds"], data["command"] = took, " ".join(["python", *shown]).replace(str(env.REPO) + "/", "")
    log(f"{name} done in {took} s")
    return data
