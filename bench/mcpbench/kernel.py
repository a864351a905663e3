"""Ping latency in a Jupyter kernel while a cell computes: runs ``bench/kernel_ping.py``.

The helper needs the project's interpreter (jupyter_client, ipykernel, nanohubmcp); it is run
as a subprocess, bounded in time, with the kernel pinned to the server core.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from typing import Any

from .env import BENCH


def measure(python: str, seconds: float, log: Callable[[str], None], cpu: str | None = "0") -> dict[str, Any]:
    """``{"thread": {...}, "kernel": {...}}`` from the helper, or ``{"error": ...}``."""
    argv = [python, str(BENCH / "kernel_ping.py"), "--seconds", str(seconds)]
    if cpu:
        argv += ["--cpu", cpu]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=4 * seconds + 240)
    except subprocess.TimeoutExpired:
        return {"error": "kernel ping helper timed out"}
    line = next((ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("{")), None)
    if done.returncode != 0 or line is None:
        return {"error": f"rc {done.returncode}: {done.stderr.strip()[-400:]}"}
    out: dict[str, Any] = json.loads(line)
    for mode, res in out.items():
        busy = res.get("busy", {})
        log(f"kernel {mode} mode: busy-cell ping p50 {busy.get('p50_ms')} ms, p99 {busy.get('p99_ms')} ms")
    return out
