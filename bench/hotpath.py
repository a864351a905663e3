#!/usr/bin/env python3
"""CPU per ``tools/call`` of a sync tool on the hot path, in seconds and in instructions.

    .venv/bin/python bench/hotpath.py                                   # this checkout vs main
    .venv/bin/python bench/hotpath.py --before /work/main --rounds 7     # an explicit "before"

One process per measurement serves ``calls`` sessionless ``tools/call`` messages of a sync tool
``add(a, b)`` through the connection seam (``Connection.parse`` + ``Connection.serve``, what every
transport hands over; no sockets), after ``warm`` calls. Two figures per checkout, the checkouts
interleaved round by round so machine noise hits them alike:

- **seconds**: CPU seconds of the process (all threads: the loop, the worker pool and the
  provenance writer, whose pending records are written before the clock stops) per call, the
  least disturbed round;
- **instructions**: user-space instructions per call counted by ``valgrind --tool=callgrind``
  (the difference between a run of ``calls`` and one of ``calls // 5``, so start-up cancels out).
  Valgrind runs the code ~50x slower, so the inline lane's time bounds are scaled by 100 under it
  (otherwise every call would look slow and stay on the pool).

Hardware counters (``perf stat -e instructions``) are not available in every container; callgrind
counts the same thing in software.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

CHILD = r"""
import asyncio, os, sys, time
if os.environ.get("HOTPATH_VALGRIND"):
    try:
        from nanohubmcp.server.calls import workers
        try:  # the inline call's bound lives in slow_calls (in workers in a checkout before 2026-12-03)
            from nanohubmcp.server.calls import slow_calls as bound
        except ImportError:
            bound = workers
        scaled = [(workers, "INLINE_CPU_SECONDS"), (workers, "INLINE_WALL_SECONDS"), (bound, "INLINE_SECONDS")]
        for module, name in scaled:
            setattr(module, name, getattr(module, name) * 100)  # a name not there: AttributeError, not a new one
    except (ImportError, AttributeError):
        pass
from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.connection import Connection

options = {"job_store": "memory"}
if os.environ.get("HOTPATH_PROVENANCE") == "off":
    options["provenance"] = False
try:  # the sync add on the loop, as before 2026-12-07 (the inline lane is an opt-in since)
    server = MCPServer("hotpath", inline_quick_calls=True, **options)
except TypeError:  # a checkout before the option
    try:
        server = MCPServer("hotpath", **options)
    except TypeError:  # a checkout without provenance records
        server = MCPServer("hotpath", job_store="memory")

@server.tool()
def add(a: float, b: float) -> float:
    '''Add two numbers.'''
    return a + b

async def main(warm, calls):
    connection = Connection(server.core, "bench")
    body = jsonenc.dumpb({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
    async def one():
        message = connection.parse(body)
        reply = await connection.serve(connection.request(message, version="2025-03-26"))
        assert "result" in reply.message, reply.message
    for _ in range(warm):
        await one()
    try:  # provenance reads the distributions table on a thread of its own: not part of a call
        try:
            from nanohubmcp.server.provenance import code_facts as facts
        except ImportError:  # a checkout from before code_facts: the table was capture's
            from nanohubmcp.server.provenance import capture as facts
        facts.warm()
        if facts._table_reader is not None:
            facts._table_reader.join(60)
    except (ImportError, AttributeError):
        pass
    started = time.process_time()
    for _ in range(calls):
        await one()
    try:  # the records of these calls, still waiting for the writer thread, are their cost too
        server.core.provenance.pending.drain()
    except AttributeError:  # a checkout without the record writer
        pass
    print(time.process_time() - started)

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
server.core.close()
"""


def run(checkout: str, warm: int, calls: int, valgrind: bool) -> float:
    env = dict(os.environ, PYTHONPATH=checkout)
    cmd = [sys.executable, "-c", CHILD, str(warm), str(calls)]
    if valgrind:
        env["HOTPATH_VALGRIND"] = "1"
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    if valgrind:
        match = re.search(r"Collected : (\d+)", done.stderr)
        assert match, done.stderr[-500:]
        return float(match.group(1))
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", default="/work/main", help="the checkout to compare with")
    ap.add_argument("--after", default=str(HERE))
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--warm", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--vg-calls", type=int, default=500)
    ap.add_argument("--provenance", choices=["on", "off"], default="on",
                    help="provenance records (on by default since they landed; off: the call path alone)")
    ap.add_argument("--json")
    args = ap.parse_args()
    os.environ["HOTPATH_PROVENANCE"] = args.provenance
    checkouts = {"before": args.before, "after": args.after}
    seconds: dict[str, list[float]] = {k: [] for k in checkouts}
    for _ in range(args.rounds):
        for name, path in checkouts.items():
            seconds[name].append(run(path, args.warm, args.calls, False) / args.calls * 1e6)
    instructions: dict[str, float] = {}
    small = args.vg_calls // 5
    for name, path in checkouts.items():
        big_ir = run(path, args.warm, args.vg_calls, True)
        small_ir = run(path, args.warm, small, True)
        instructions[name] = (big_ir - small_ir) / (args.vg_calls - small)
    out = {
        "cpu_us_per_call": {k: min(v) for k, v in seconds.items()},
        "cpu_us_per_call_median": {k: statistics.median(v) for k, v in seconds.items()},
        "instructions_per_call": instructions,
        "load": os.getloadavg(),
        "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    print(f"{'checkout':<8} {'CPU us/call (min)':>18} {'(median)':>9} {'instructions/call':>18}")
    for name in checkouts:
        print(f"{name:<8} {out['cpu_us_per_call'][name]:18.1f} {out['cpu_us_per_call_median'][name]:9.1f} "
              f"{instructions[name]:18.0f}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
