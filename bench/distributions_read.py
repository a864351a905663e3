#!/usr/bin/env python3
"""What provenance's one-off read of the installed-distributions table costs a server's first second.

    .venv/bin/python bench/distributions_read.py                         # this checkout, 7 rounds
    .venv/bin/python bench/distributions_read.py --before /tmp/main      # ... and another checkout, interleaved
    .venv/bin/python bench/distributions_read.py --busy 2                # ... with 2 busy processes beside it

Each case is a fresh process (the table is read once per process) serving a trivial tool with provenance on:

- **latency** (``read``): right after the first call (which starts the read), 200 quick calls through
  ``server.call`` (main thread -> the server's event loop -> the tool's thread, each waited for): p50 and p99 of
  their latency, ms, and the server process's CPU time from the first call until the table is read (what its own
  threads spent, and so held its interpreter lock for). ``pre-read``: the same with the table read before the
  first call (the floor).
- **exit**: a script that makes its first call and returns: ms from its last line to the process's end (the exit
  joins non-daemon threads: the in-process read held it until the table was read). ``pre-read``: the table read
  before the first call (the floor: the interpreter's own exit, the records' writer's last write).

Cases are interleaved round by round (a neighbour's burst hits them alike); the table gives the median over rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATE = ""
"""Where the cases keep their state folders (a temporary folder of this run)."""

LATENCY = """
import json, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from nanohubmcp import MCPServer
from nanohubmcp.server.provenance import code_facts

server = MCPServer("distread", state_dir=tempfile.mkdtemp(dir=sys.argv[-1]))

@server.tool()
def add(a: float, b: float) -> float:
    '''a + b.'''
    return a + b

server.start(port=0)
if sys.argv[2] == "pre-read":
    code_facts.distributions(wait=True)
cpu = time.process_time()
server.call("add", {"a": 0, "b": 0})
took = []
for n in range(200):
    t = time.perf_counter()
    server.call("add", {"a": n, "b": 1})
    took.append(time.perf_counter() - t)
took.sort()
read_during = code_facts._table is None
code_facts.distributions(wait=True)
cpu = time.process_time() - cpu
print(json.dumps({"p50": took[99] * 1000, "p99": took[197] * 1000, "cpu": cpu * 1000, "read_during": read_during}))
server.stop()
"""

EXIT = """
import sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from nanohubmcp import MCPServer

server = MCPServer("distread", state_dir=tempfile.mkdtemp(dir=sys.argv[-1]))

@server.tool()
def add(a: float, b: float) -> float:
    '''a + b.'''
    return a + b

server.start(port=0)
if sys.argv[2] == "pre-read":
    from nanohubmcp.server.provenance import code_facts

    code_facts.distributions(wait=True)
server.call("add", {"a": 0, "b": 0})
server.stop()
print("done", flush=True)
"""


def latency(tree: str, mode: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", LATENCY, tree, mode, STATE], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "MCP_TOKEN": ""}, check=True)
    answer: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def exit_ms(tree: str, mode: str) -> float:
    child = subprocess.Popen([sys.executable, "-c", EXIT, tree, mode, STATE], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "MCP_TOKEN": ""})
    assert child.stdout is not None
    line = child.stdout.readline()
    t = time.perf_counter()
    child.wait(300)
    assert line.strip() == "done", line
    return (time.perf_counter() - t) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--before", help="another checkout to compare (its nanohubmcp imported)")
    parser.add_argument("--busy", type=int, default=0, help="busy processes beside the cases (a loaded machine)")
    opts = parser.parse_args()
    trees = {"after": str(ROOT)} | ({"before": opts.before} if opts.before else {})
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(opts.busy)]
    rows: dict[tuple[str, str], list[dict[str, float]]] = {}
    try:
        for round_ in range(opts.rounds):
            for name, tree in trees.items():
                for mode in ("read", "pre-read"):
                    rows.setdefault((name, mode), []).append(latency(tree, mode))
                for mode in ("read", "pre-read"):
                    rows.setdefault((name, f"exit, {mode}"), []).append({"exit": exit_ms(tree, mode)})
            print(f"round {round_ + 1}/{opts.rounds}", file=sys.stderr)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    print(f"| tree | case | p50 ms | p99 ms | CPU ms | exit ms | (medians of {opts.rounds} rounds, {opts.busy} "
          "busy; min-max) |")
    print("|---|---|---|---|---|---|---|")
    for (name, case), got in rows.items():
        key = "exit" if case.startswith("exit") else "p99"
        cells = [f"{statistics.median(r[key] for r in got):.2f}" if key in got[0] else "" for key in
                 ("p50", "p99", "cpu", "exit")]
        spread = f"{key} {min(r[key] for r in got):.2f}-{max(r[key] for r in got):.2f}"
        print(f"| {name} | {case} | {' | '.join(cells)} | {spread} |")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="distread-bench-") as folder:
        STATE = folder
        main()
