#!/usr/bin/env python3
"""What serving a Sim2L adds to running its notebook: an MCP call against papermill directly.

    .venv/bin/python bench/sim2l_overhead.py                 # 3 rounds, the table on stdout
    .venv/bin/python bench/sim2l_overhead.py --rounds 5 --json

The Sim2L is ``examples/sim2l/cooling/cooling.ipynb``. Each round, with inputs no earlier round used
(so nothing is answered from a stored run):

- **papermill**: ``papermill.execute_notebook`` of the notebook with the same parameters, in a
  fresh directory, then reading the outputs with ``simtool.DB`` — what a script that runs a Sim2L
  itself does;
- **MCP call**: ``tools/call`` of the served Sim2L by the official ``mcp`` client over Streamable
  HTTP (the server in this process): argument checks by simtool's types, the same papermill run,
  the outputs read and shaped as MCP content, the run stored;
- **stored**: the same call again, answered from the stored run (no papermill).

Both papermill figures include a kernel start, which dominates. Reported: the median and the
spread of each, and the overhead (MCP call - papermill) as a median of the per-round differences.
Not a test: nothing asserts a figure. The machine's load at the start is printed with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
NOTEBOOK = ROOT / "examples" / "sim2l" / "cooling" / "cooling.ipynb"


def papermill_run(parameters: dict[str, Any]) -> float:
    import papermill
    from simtool import DB

    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        output = os.path.join(folder, "cooling.ipynb")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            papermill.execute_notebook(
                str(NOTEBOOK), output, parameters=parameters, cwd=folder, progress_bar=False, log_output=False
            )
        db = DB(output, dir=folder)
        for name in ("time", "temperature", "final_temperature", "half_time"):
            db.read(name)
        return time.perf_counter() - started


async def mcp_calls(url: str, arguments: dict[str, Any]) -> tuple[float, float]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        started = time.perf_counter()
        first = await session.call_tool("cooling", arguments)
        ran = time.perf_counter() - started
        assert not first.is_error, first.content
        assert first.structured_content["cached"] is False
        started = time.perf_counter()
        again = await session.call_tool("cooling", arguments)
        stored = time.perf_counter() - started
        assert again.structured_content["cached"] is True
        return ran, stored


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from nanohubmcp import MCPServer

    load = os.getloadavg()[0]
    state = tempfile.mkdtemp(prefix="sim2l-bench-")
    server = MCPServer("sim2l-bench", state_dir=state)
    server.add_sim2l(str(NOTEBOOK))
    server.start(host="127.0.0.1", port=0)
    direct, called, stored = [], [], []
    try:
        papermill_run({"points": 3})  # warm the imports both sides use
        for round_ in range(args.rounds):
            points = 11 + round_  # a new input each round: nothing comes from a stored run
            parameters = {
                "initial_temperature": 370.0,
                "ambient_temperature": 293.0,
                "rate": 0.01,
                "duration": 600.0,
                "points": points,
            }
            direct.append(papermill_run(parameters))
            ran, again = asyncio.run(mcp_calls(f"{server.url}mcp", {"points": points}))
            called.append(ran)
            stored.append(again)
    finally:
        server.stop()
    overheads = [c - d for c, d in zip(called, direct, strict=True)]
    figures = {
        "rounds": args.rounds,
        "load_1min": round(load, 2),
        "papermill_s": {
            "median": round(statistics.median(direct), 3),
            "min": round(min(direct), 3),
            "max": round(max(direct), 3),
        },
        "mcp_call_s": {
            "median": round(statistics.median(called), 3),
            "min": round(min(called), 3),
            "max": round(max(called), 3),
        },
        "stored_call_s": {
            "median": round(statistics.median(stored), 3),
            "min": round(min(stored), 3),
            "max": round(max(stored), 3),
        },
        "overhead_s": {
            "median": round(statistics.median(overheads), 3),
            "min": round(min(overheads), 3),
            "max": round(max(overheads), 3),
        },
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"Sim2L cooling, {args.rounds} rounds, 1-minute load {load:.2f} at the start")
    print("| what | median s | min s | max s |")
    print("| --- | --- | --- | --- |")
    for key, label in (
        ("papermill_s", "papermill directly (+ simtool.DB reads)"),
        ("mcp_call_s", "MCP tools/call, new inputs"),
        ("overhead_s", "overhead (call - papermill, per round)"),
        ("stored_call_s", "MCP tools/call, stored run"),
    ):
        row = figures[key]
        print(f"| {label} | {row['median']} | {row['min']} | {row['max']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
