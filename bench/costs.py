#!/usr/bin/env python3
"""Price of each serving feature: the Tornado ceiling with one feature on, against itself bare.

    python3 bench/costs.py                       # 3 rounds x 8 s per variant at c=16
    python3 bench/costs.py --rounds 5 --seconds 10 --conc 1

Variants are ``servers/ceiling_costs.py`` with no flag (the base), each single flag, all flags,
and nanohubmcp itself (``servers/ours.py``). Within each round every variant gets one wrk cell
(rotated order); the extra server CPU per request over the base is taken per round, then the
median is printed, so a shared host's noise largely cancels. Prints a table and writes
bench/results/costs-<utc>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpbench import env, mcp, procs, wrk
from mcpbench.http import Connection
from mcpbench.phases import rotate

VARIANTS = {
    "base (async post)": ["servers/ceiling_costs.py"],
    "+ body_timeout": ["servers/ceiling_costs.py", "--body-timeout"],
    "+ stream_request_body": ["servers/ceiling_costs.py", "--stream-body"],
    "+ thread-pool tool call": ["servers/ceiling_costs.py", "--executor"],
    "+ jsonschema validation": ["servers/ceiling_costs.py", "--validate"],
    "+ all four": ["servers/ceiling_costs.py", "--all"],
    "nanohubmcp": ["servers/ours.py"],
}


async def session(port: int) -> str | None:
    conn = Connection("127.0.0.1", port)
    try:
        return await mcp.open_session(conn)
    finally:
        await conn.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--conc", type=int, default=16)
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--client-cpu", default="1")
    a = p.parse_args()
    env.ensure_wrk()
    python = env.our_python()
    os.sched_setaffinity(0, {int(c) for c in a.client_cpu.split(",")})
    servers, ports, sessions = {}, {}, {}
    cells: dict[str, list[dict[str, object]]] = {name: [] for name in VARIANTS}
    try:
        for i, (name, argv) in enumerate(VARIANTS.items()):
            ports[name] = 8340 + i
            servers[name] = procs.ServerProcess(
                [python, argv[0], "--port", str(ports[name]), *argv[1:]], env.BENCH, a.server_cpu
            )
            servers[name].start()
        for name in VARIANTS:
            if asyncio.run(mcp.wait_ready("127.0.0.1", ports[name], 60)) is None:
                raise SystemExit(f"{name} not ready")
            sessions[name] = asyncio.run(session(ports[name]))
        body = mcp.call_body("add", mcp.ADD_ARGS, templated=True)
        for name in VARIANTS:  # warm-up
            wrk.run(ports[name], a.conc, 2, body, mcp.headers(session=sessions[name]), mcp.ADD_EXPECT)
        for r in range(a.rounds):
            for name in rotate(list(VARIANTS), r):
                cell = wrk.run(
                    ports[name],
                    a.conc,
                    a.seconds,
                    body,
                    mcp.headers(session=sessions[name]),
                    mcp.ADD_EXPECT,
                    servers[name].pid,
                )
                cell["round"] = r
                cells[name].append(cell)
            print(
                f"round {r + 1}: " + ", ".join(f"{n}={c[-1]['cpu_us_per_req']}" for n, c in cells.items()),
                flush=True,
            )
    finally:
        for s in servers.values():
            s.stop()
    base = "base (async post)"
    print(f"\nserver CPU µs per tools/call at c={a.conc}, median of {a.rounds} rounds x {a.seconds} s")
    print(f"{'variant':28} {'µs/req':>8} {'+µs vs base':>12} {'req/s':>8} {'bad':>5}")
    summary = {}
    for name, cs in cells.items():
        extra = [c["cpu_us_per_req"] - b["cpu_us_per_req"] for c, b in zip(cs, cells[base], strict=True)]
        row = {
            "cpu_us_per_req": statistics.median(c["cpu_us_per_req"] for c in cs),
            "extra_us": statistics.median(extra),
            "rps": statistics.median(c["rps"] for c in cs),
            "bad": sum(c["wrong"] for c in cs),
        }
        summary[name] = row
        print(
            f"{name:28} {row['cpu_us_per_req']:8.1f} {row['extra_us']:+12.1f} "
            f"{row['rps']:8.0f} {row['bad']:5d}"
        )
    out = env.BENCH / "results" / f"costs-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"settings": vars(a), "summary": summary, "cells": cells}, indent=1) + "\n")
    print(f"\nraw: {out.relative_to(env.REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
