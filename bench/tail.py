#!/usr/bin/env python3
"""The c=64 tail: the ceiling and our server, interleaved, p50/p90/p99/max and the ratios.

    python3 bench/tail.py                       # 3 rounds x 6 s at c=64: ceiling, ours, ours without provenance
    python3 bench/tail.py --tree /tmp/x-before  # + ours imported from another checkout (before/after a change)
    python3 bench/tail.py --env BENCH_GC_REPORT=/tmp/tail-gc.json   # + ours with that environment

Each server is started as run.py starts it (``servers/*.py``, pinned to --server-cpu; this script and
wrk to --client-cpu), warmed up at c=16, then every round runs one wrk cell per server at --conc, in a
rotated order. Ratios are taken per round against the ceiling's cell of the same round, then the median
(min-max). The measurement holds ``--lock`` (flock) so that other benchmark runs on the host wait.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpbench import env, matrix, mcp, phases, procs, wrk
from mcpbench.http import Connection
from mcpbench.matrix import Entry, Process

T0 = time.perf_counter()
FIRST_EXTRA_PORT = 8331


def log(text: str) -> None:
    print(f"[{time.perf_counter() - T0:6.1f}s] {text}", flush=True)


def options(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--duration", type=float, default=6.0, help="seconds per wrk cell")
    p.add_argument("--warmup", type=float, default=2.0, help="seconds of c=16 load per server first")
    p.add_argument("--conc", type=int, default=64)
    p.add_argument("--no-noprov", action="store_true", help="leave out ours with provenance off")
    p.add_argument("--tree", action="append", default=[],
                   help="also ours imported from this checkout (DIR, or DIR:--flag,... for servers/ours.py's flags)")
    p.add_argument("--env", action="append", default=[], help="also ours with K=V[,K=V] in its environment")
    p.add_argument("--gc-report", type=Path, help="each of our servers writes its collector's runs to DIR/<key>.json")
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--client-cpu", default="1")
    p.add_argument("--lock", default="/work/team/bench.lock", help="flock held while measuring ('' = none)")
    p.add_argument("--json", type=Path, help="write the cells here")
    return p.parse_args(argv)


def chosen(a: argparse.Namespace) -> list[tuple[Process, Entry, dict[str, str]]]:
    """(process, entry, extra environment) per server measured; the ceiling first."""
    out = [(matrix.process("ceiling"), Entry(matrix.CEILING, "ceiling", "ceiling"), {})]
    out.append((matrix.process("ours"), Entry(matrix.OURS, "ours", "ours"), {}))
    if not a.no_noprov:
        out.append((matrix.process("ours-noprov"), Entry(matrix.OURS_NOPROV, "ours-noprov", "ours"), {}))
    port = FIRST_EXTRA_PORT
    for spec in a.tree:
        key = f"ours-tree-{port}"
        tree, _, flags = spec.partition(":")
        argv = ("--tree", tree, *(f for f in flags.split(",") if f))
        out.append((Process(key, "ours", "ours.py", port, argv), Entry(f"ours, {spec}", key, "ours"), {}))
        port += 1
    for spec in a.env:
        key = f"ours-env-{port}"
        extra = dict(kv.split("=", 1) for kv in spec.split(","))
        out.append((Process(key, "ours", "ours.py", port), Entry(f"ours, {spec}", key, "ours"), extra))
        port += 1
    return out


async def measure(a: argparse.Namespace, servers: list[tuple[Process, Entry, dict[str, str]]]) -> dict[str, Any]:
    python = {"ours": env.our_python()}
    started = {}
    for p, _, extra in servers:
        argv = p.argv(python)
        if a.gc_report and p.key != "ceiling":
            extra = {**extra, "BENCH_GC_REPORT": str(a.gc_report.resolve() / f"{p.key}.json")}
        if extra:
            argv = ["env", *(f"{k}={v}" for k, v in extra.items()), *argv]
        started[p.key] = procs.ServerProcess(argv, env.BENCH, a.server_cpu or None)
    cells: dict[str, list[dict[str, Any]]] = {e.name: [] for _, e, _ in servers}
    try:
        for s in started.values():
            s.start()
        sessions, prepared = {}, {}
        for p, e, _ in servers:
            if await mcp.wait_ready(phases.HOST, p.port, 60.0) is None:
                raise SystemExit(f"{p.key} did not answer initialize within 60 s")
            conn = Connection(phases.HOST, p.port)
            try:
                sessions[e.name] = await mcp.open_session(conn)
                reply = await mcp.call(conn, e, sessions[e.name])
            finally:
                await conn.close()
            if reply.status != 200 or mcp.ADD_EXPECT.encode() not in reply.body:
                raise SystemExit(f"probe failed for {e.name}: {reply.status} {reply.body[:200]!r}")
            body = mcp.call_body(e.tool, mcp.ADD_ARGS, templated=True)
            prepared[e.name] = (p.port, body, mcp.entry_headers(e, sessions[e.name]), started[p.key].pid)

        def cell(name: str, conc: int, seconds: float) -> dict[str, Any]:
            port, body, headers, pid = prepared[name]
            return wrk.run(port, conc, seconds, body, headers, mcp.ADD_EXPECT, pid)

        for _, e, _ in servers:
            await asyncio.to_thread(cell, e.name, 16, a.warmup)
        log("warm-up done")
        names = [e.name for _, e, _ in servers]
        for r in range(a.rounds):
            for name in phases.rotate(names, r):
                result = await asyncio.to_thread(cell, name, a.conc, a.duration)
                result["round"] = r
                cells[name].append(result)
                if result["wrong"] or any(result["errors"].values()):
                    log(f"  {name}: {result['wrong']} wrong, errors {result['errors']}")
            shown = (f"{n} p99 {cells[n][-1]['p99_us'] / 1e3:.1f} ms" for n in names)
            log(f"round {r + 1}/{a.rounds}: " + ", ".join(shown))
    finally:
        for s in started.values():
            s.stop()
    return cells


def table(cells: dict[str, list[dict[str, Any]]]) -> str:
    """Per server: median p50/p90/p99/max (ms), req/s, CPU µs/req, p99/p50, and per-round ratios to the ceiling."""
    ceiling = cells[matrix.CEILING]

    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"

    lines = [
        "| server | req/s | CPU us/req | p50 ms | p90 ms | p99 ms | max ms | p99/p50 | p50 ÷ ceiling | p99 ÷ ceiling |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, rows in cells.items():
        ms = {k: statistics.median(r[k] for r in rows) / 1e3 for k in ("p50_us", "p90_us", "p99_us", "max_us")}
        per_round = [(r, next(c for c in ceiling if c["round"] == r["round"])) for r in rows]
        lines.append(
            f"| {name} | {statistics.median(r['rps'] for r in rows):,.0f} "
            f"| {statistics.median(r.get('cpu_us_per_req', 0) for r in rows):.0f} "
            f"| {ms['p50_us']:.2f} | {ms['p90_us']:.2f} | {ms['p99_us']:.2f} | {ms['max_us']:.1f} "
            f"| {med([r['p99_us'] / r['p50_us'] for r in rows])} "
            f"| {med([r['p50_us'] / c['p50_us'] for r, c in per_round])} "
            f"| {med([r['p99_us'] / c['p99_us'] for r, c in per_round])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    a = options(argv)
    env.ensure_wrk(log)
    if a.client_cpu:
        os.sched_setaffinity(0, {int(c) for c in a.client_cpu.split(",")})
    servers = chosen(a)
    lock = open(a.lock, "a") if a.lock else None  # noqa: SIM115
    try:
        if lock:
            log(f"waiting for {a.lock}")
            fcntl.flock(lock, fcntl.LOCK_EX)
        log(f"measuring, load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
        cells = asyncio.run(measure(a, servers))
    finally:
        if lock:
            lock.close()
    print(table(cells), flush=True)
    if a.gc_report:
        for p, e, _ in servers[1:]:
            report = json.loads((a.gc_report / f"{p.key}.json").read_text())
            full = report.pop("full runs (s, ms, collected, gen-2 objects)", [])
            print(f"{e.name}: gc {report}; gen-2 runs (s, ms, collected, objects): {full}")
    if a.json:
        a.json.write_text(json.dumps(cells, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
