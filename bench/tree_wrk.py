"""Interleaved wrk cells: the bare-Tornado ceiling, our server from one checkout, and from another.

    .venv/bin/python bench/tree_wrk.py BEFORE_CHECKOUT AFTER_CHECKOUT [--conc 1,16,64] [--rounds 3] [--duration 3]

Three servers (``servers/ceiling_tornado.py``; ``servers/ours.py --no-provenance --tree DIR`` for
each checkout, e.g. a ``git archive`` of main unpacked in /tmp, and this worktree) pinned to CPU 0,
this script and wrk to CPU 1. After one warm-up cell each (c=16, 2 s), every round runs one cell
per concurrency per server in turn, so the host's load falls on all three alike. Each cell is
``tools/call add`` on one session (``lua/call.lua``), keep-alive. Printed per concurrency and server:
the median over rounds of req/s (and ÷ the ceiling's), the server's CPU per request (user + system,
all threads) and p99. Not a test: nothing asserts a figure; on a shared host read the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from mcpbench import mcp, wrk  # noqa: E402
from mcpbench.http import Connection  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def open_sessions(ports: dict[str, int]) -> dict[str, str | None]:
    sessions: dict[str, str | None] = {}
    for name, port in ports.items():
        if await mcp.wait_ready("127.0.0.1", port, 60) is None:
            raise RuntimeError(f"{name} did not start")
        conn = Connection("127.0.0.1", port)
        sessions[name] = await mcp.open_session(conn)
        await conn.close()
    return sessions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--conc", default="16")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=3.0)
    opts = parser.parse_args()
    concs = [int(c) for c in opts.conc.split(",")]
    specs = {
        "ceiling": ["ceiling_tornado.py"],
        "before": ["ours.py", "--no-provenance", "--tree", opts.before],
        "after": ["ours.py", "--no-provenance", "--tree", opts.after],
    }
    procs: dict[str, subprocess.Popen[bytes]] = {}
    ports = {name: free_port() for name in specs}
    try:
        for name, argv in specs.items():
            procs[name] = subprocess.Popen(
                ["taskset", "-c", "0", sys.executable, *argv, "--port", str(ports[name])],
                cwd=HERE / "servers", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        sessions = asyncio.run(open_sessions(ports))
        os.sched_setaffinity(0, {1})
        body = mcp.call_body("add", mcp.ADD_ARGS, templated=True)
        cells: dict[tuple[str, int], list[dict]] = {}
        for name in specs:
            wrk.run(ports[name], 16, 2, body, mcp.headers(session=sessions[name]), mcp.ADD_EXPECT, procs[name].pid)
        for _ in range(opts.rounds):
            for conc in concs:
                for name in specs:
                    cell = wrk.run(ports[name], conc, opts.duration, body, mcp.headers(session=sessions[name]),
                                   mcp.ADD_EXPECT, procs[name].pid)
                    cells.setdefault((name, conc), []).append(cell)
    finally:
        for proc in procs.values():
            os.killpg(proc.pid, signal.SIGTERM)
    for conc in concs:
        ceiling = statistics.median(c["rps"] for c in cells[("ceiling", conc)])
        for name in specs:
            rows = cells[(name, conc)]
            rps = statistics.median(c["rps"] for c in rows)
            cpu = statistics.median(c.get("cpu_us_per_req", float("nan")) for c in rows)
            p99 = statistics.median(c["p99_us"] for c in rows) / 1000
            print(f"c={conc:<3} {name:8} {rps:7.0f} req/s ({rps / ceiling:.2f}x ceiling)  "
                  f"CPU {cpu:6.1f} us/request  p99 {p99:7.2f} ms")


if __name__ == "__main__":
    main()
