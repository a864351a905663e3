#!/usr/bin/env python3
"""The cyclic collector's full passes in a served Rappture tool's process, two trees' servers side by side: how many
passes, the objects each walked and its time (``gc.callbacks``, by ``bench/gc_probe/sitecustomize.py`` in each
server), what each froze, and each call against the command alone, rounds interleaved.

    .venv/bin/python bench/rappture_gc.py --rounds 10 --tree-a /work/main          # A: main, B: this tree
    .venv/bin/python bench/rappture_gc.py --rounds 20 --seconds 10ms --tree-a /work/main   # passes over short calls

The servers are ``nanohubmcp rappture bench/rappture_tool/tool.xml`` (with the plot) as ``bench/rappture_overhead.py``
starts them, each from its tree. A warm-up call each (its program 10 ms: imports matplotlib and pint), then each
round: the command alone (``rappture_overhead.direct_run``), A's call and B's (which goes first alternates), each of
``--seconds`` work. Reported: per arm, the call / command ratio per round (median), the full passes after the
warm-up calls (the warm-ups' apart), the objects each walked, their milliseconds; and B's call / A's per round.
Counts are the point; seconds are the shared host's. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import rappture_overhead  # noqa: E402


def _start(tree: Path, report: Path) -> tuple[subprocess.Popen[bytes], str]:
    prefix = ("env", f"PYTHONPATH={ROOT / 'bench' / 'gc_probe'}:{tree}", f"BENCH_GC_PROBE={report}")
    return rappture_overhead.start_server(prefix=prefix, tree=tree)


def _arm(report: dict[str, Any], calls: list[float], direct: list[float], warm: float) -> dict[str, Any]:
    full = [each for each in report["full"] if each["at"] > warm]  # (not the warm-up call's: its imports')
    return {
        "warm_up_passes": [(each["walked"], each["ms"]) for each in report["full"] if each["at"] <= warm],
        "ratio_median": round(statistics.median(c / d for c, d in zip(calls, direct, strict=True)), 4),
        "call_s_median": round(statistics.median(calls), 4),
        "calls_s": [round(each, 4) for each in calls],
        "full_passes": len(full),
        "walked": [f["walked"] for f in full],
        "ms": [f["ms"] for f in full],
        "threads": sorted({f["thread"] for f in full}),
        "frozen_at_exit": report["frozen"],
        "tracked_at_exit": report["tracked"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seconds", default="1000ms")
    parser.add_argument("--tree-a", type=Path, required=True)
    parser.add_argument("--tree-b", type=Path, default=ROOT)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    trees = {"A": args.tree_a.resolve(), "B": args.tree_b.resolve()}
    with tempfile.TemporaryDirectory() as folder:
        reports = {arm: Path(folder) / f"{arm}.json" for arm in trees}
        servers = {arm: _start(tree, reports[arm]) for arm, tree in trees.items()}
        try:
            for _, url in servers.values():
                asyncio.run(rappture_overhead.mcp_call(url, {"seconds": "10ms", "seed": 0}))
            warm = time.monotonic()
            direct: list[float] = []
            calls: dict[str, list[float]] = {arm: [] for arm in trees}
            for round_ in range(args.rounds):
                seed = round_ + 1
                direct.append(rappture_overhead.direct_run(rappture_overhead.driver_text(seed)))
                for arm in ("A", "B") if round_ % 2 == 0 else ("B", "A"):
                    calls[arm].append(asyncio.run(rappture_overhead.mcp_call(
                        servers[arm][1], {"seconds": args.seconds, "seed": seed})))
        finally:
            for process, _ in servers.values():
                process.send_signal(signal.SIGTERM)
            for process, _ in servers.values():
                process.wait(timeout=60)
        got = {arm: json.loads(path.read_text()) for arm, path in reports.items()}
    figures: dict[str, Any] = {"rounds": args.rounds, "seconds": args.seconds, "load_1min_start": round(load, 2),
                               "load_1min_end": round(os.getloadavg()[0], 2),
                               "trees": {arm: str(tree) for arm, tree in trees.items()}}
    for arm in trees:
        figures[arm] = _arm(got[arm], calls[arm], direct, warm)
    figures["B_over_A_per_round_median"] = round(statistics.median(
        b / a for a, b in zip(calls["A"], calls["B"], strict=True)), 4)
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
