#!/usr/bin/env python3
"""Cold start: process spawn -> first ``initialize`` answered, ours against bare Tornado, interleaved.

    .venv/bin/python bench/startup.py                        # 11 rounds: ceiling, this checkout
    .venv/bin/python bench/startup.py --before /tmp/main     # ... and another checkout (ours.py --tree)
    .venv/bin/python bench/startup.py --instructions         # ... plus instructions to the first answer

The same servers and the same measurement as ``bench/run.py``'s cold-start phase
(``servers/ceiling_tornado.py`` and ``servers/ours.py``; the first ``initialize`` polled every
5 ms from the spawn), with three figures per server, each a median over interleaved rounds (a
round starts every server once, in a rotated order, so a neighbour's burst hits them alike):

- **wall ms**: spawn -> first answer, what run.py reports;
- **CPU ms**: CPU time of the server process (all threads, from ``/proc/PID/task/*/schedstat``,
  nanoseconds) at the moment of the first answer: it does not count waiting for a core, so it
  moves less with the host's load than the wall time;
- **instructions** (``--instructions``, one run each, ``PYTHONHASHSEED=0``): user-space instructions
  the server executed up to its first answer, counted by ``valgrind --tool=callgrind`` and dumped
  with ``callgrind_control --dump`` once the answer arrived (start-up only, no shut-down;
  ``mcpbench/startup_count.py``, which run.py's instructions phase uses too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpbench import env, mcp, procs
from mcpbench.startup_count import instructions, port_of

HOST = "127.0.0.1"


def cpu_ns(pid: int) -> int | None:
    """CPU time of every thread of ``pid`` so far, nanoseconds (scheduler accounting)."""
    total, seen = 0, False
    for stat in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(stat.read_text().split()[0])
            seen = True
        except (OSError, ValueError, IndexError):
            continue
    return total if seen else None


def servers(python: str, before: str | None) -> dict[str, list[str]]:
    out = {
        "ceiling": [python, "servers/ceiling_tornado.py", "--port", "8331"],
        "ours": [python, "servers/ours.py", "--port", "8332"],
    }
    if before:
        out["before"] = [python, "servers/ours.py", "--port", "8333", "--tree", before]
    return out


async def once(argv: list[str], timeout: float) -> tuple[float | None, float | None]:
    """(wall ms, CPU ms) from the spawn to the first initialize answered."""
    server = procs.ServerProcess(argv, env.BENCH, None)
    t0 = server.start()
    try:
        t1 = await mcp.wait_ready(HOST, port_of(argv), timeout)
        cpu = cpu_ns(server.pid)
    finally:
        server.stop()
    if t1 is None:
        return None, None
    return round((t1 - t0) * 1000, 1), (round(cpu / 1e6, 1) if cpu is not None else None)


def ratio(values: dict[str, float | None] | dict[str, int | None], name: str) -> str:
    x, c = values.get(name), values.get("ceiling")
    return f"{x / c:.2f}" if x and c else "-"


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--before", help="another checkout's root, served by servers/ours.py --tree")
    p.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    p.add_argument("--timeout", type=float, default=30.0)
    p.add_argument("--json", help="write the raw figures here")
    a = p.parse_args()
    python = env.our_python()
    env.compile_bytecode(python)
    if a.before:
        subprocess.run([python, "-m", "compileall", "-q", str(Path(a.before) / "nanohubmcp")], check=False)
    cmds = servers(python, a.before)
    load0 = Path("/proc/loadavg").read_text().split()[:3]
    wall: dict[str, list[float]] = {k: [] for k in cmds}
    cpu: dict[str, list[float]] = {k: [] for k in cmds}
    names = list(cmds)
    for r in range(a.runs):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            w, c = await once(cmds[name], a.timeout)
            if w is not None:
                wall[name].append(w)
            if c is not None:
                cpu[name].append(c)
            await asyncio.sleep(0.2)
        print(f"round {r + 1}/{a.runs}: " + ", ".join(f"{n}={wall[n][-1] if wall[n] else '-'}ms" for n in names))
    counts: dict[str, int | None] = {}
    if a.instructions:
        for name in names:
            t = time.perf_counter()
            counts[name] = await instructions(cmds[name], max(a.timeout, 300.0))
            print(f"instructions {name}: {counts[name]} ({time.perf_counter() - t:.0f} s)")
    load1 = Path("/proc/loadavg").read_text().split()[:3]
    med = {n: (statistics.median(wall[n]) if wall[n] else None) for n in names}
    cmed = {n: (statistics.median(cpu[n]) if cpu[n] else None) for n in names}
    print(f"\nload {' '.join(load0)} -> {' '.join(load1)}; {a.runs} rounds")
    print("| server | wall ms (median) | ÷ ceiling | CPU ms (median) | ÷ ceiling | instructions | ÷ ceiling |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for n in names:
        ins = f"{counts[n]:,}" if counts.get(n) else "-"
        print(f"| {n} | {med[n]} | {ratio(med, n)} | {cmed[n]} | {ratio(cmed, n)} | {ins} | {ratio(counts, n)} |")
    if a.json:
        raw = {"load": [load0, load1], "wall_ms": wall, "cpu_ms": cpu, "instructions": counts, "argv": cmds}
        Path(a.json).write_text(json.dumps(raw, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
