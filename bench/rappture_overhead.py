#!/usr/bin/env python3
"""What serving a Rappture tool adds to running its command: an MCP call against the program directly.

    .venv/bin/python bench/rappture_overhead.py                 # 10 rounds, the table on stdout
    .venv/bin/python bench/rappture_overhead.py --rounds 20 --json
    .venv/bin/python bench/rappture_overhead.py --rounds 4 --instructions 4   # and instructions (minutes)

The tool is ``bench/rappture_tool`` (a Python program on Rappture's API that works for about a second,
then writes a 200-point curve and a number). Each round, alternating:

- **direct**: what a script that runs the tool itself does: copy the driver into a fresh directory,
  run ``python work.py driver.xml`` there (the same interpreter and ``Rappture`` package), read the run
  file it names;
- **MCP call**: ``tools/call`` of the served tool by the official ``mcp`` client over Streamable HTTP
  (the server is ``nanohubmcp rappture TOOL --port P``, a process of its own): arguments checked (a
  number with units, through pint), the driver written, the same program run in a fresh directory, the
  run file read, the curve plotted (PNG) and the result shaped;
- **MCP call, data only**: the same with ``--no-plot`` (the curve as data, no PNG).

With ``--instructions N``, the server's own instructions per call are counted too (valgrind, all its
threads, the tool's program not included; a warm-up call and N calls against one call, 10 ms of work
each), with the plot and data only: what the plot costs the server, stable on a loaded machine.

Reported: the median and spread of each, the medians of the per-round ratios (call / direct) and of the
differences. The target is a ratio of at most 1.05. Not a test: nothing asserts a figure. The machine's
load at the start is printed with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TOOL = ROOT / "bench" / "rappture_tool" / "tool.xml"


def driver_text(seed: int) -> str:
    """The driver the server writes for ``{"seed": seed}`` (made the same way, once per round)."""
    from nanohubmcp.sources.rappture import load_rappture_tool
    from nanohubmcp.sources.rappture.driver import current_values, write_driver

    tool = load_rappture_tool(TOOL, rappture="")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "driver.xml"
        write_driver(tool.root, tool.inputs.arguments, current_values(tool.name, tool.inputs.arguments,
                                                                      {"seed": seed}), path)
        return path.read_text()


def direct_run(driver: str) -> float:
    from nanohubmcp.sources.rappture.execute import program_environment

    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="rappture-direct-"))
    try:
        (folder / "driver.xml").write_text(driver)
        done = subprocess.run([sys.executable, str(TOOL.parent / "work.py"), str(folder / "driver.xml")],
                              cwd=folder, env=program_environment(), capture_output=True, text=True, check=True)
        found = re.search(r"=RAPPTURE-RUN=>(\S+)", done.stdout)
        assert found, done.stdout
        (folder / found.group(1)).read_text()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return time.perf_counter() - started


async def mcp_call(url: str, arguments: dict[str, Any], name: str = "rappture_tool") -> float:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        # A session that has listed its tools, as an assistant's has: otherwise the official client's
        # call_tool first waits for its initialized notification's answer and afterwards lists the tools
        # to learn the output schema (~19 + 12 ms of session set-up, not of the call).
        await session.list_tools()
        started = time.perf_counter()
        result = await session.call_tool(name, arguments)
        took = time.perf_counter() - started
        assert not result.is_error, result.content
        assert any(c.type == "image" for c in result.content) == (name == "rappture_tool")
        assert len(result.structured_content["outputs"]["wave"]["x"]) == 200
        return took


def start_server(*options: str, prefix: tuple[str, ...] = (), wait: float = 60,
                 tree: Path = ROOT) -> tuple[subprocess.Popen[bytes], str]:
    """``nanohubmcp rappture TOOL`` on a free port (``tree``'s nanohubmcp: run from there); returns the process and
    its MCP URL once it answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([*prefix, sys.executable, "-m", "nanohubmcp", "rappture", str(TOOL), "--port", str(port),
                                *options], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tree)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start")


async def mcp_calls(url: str, name: str, calls: int) -> None:
    """``calls`` calls of ``name`` (10 ms of work each) in one session."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for seed in range(calls):
            result = await session.call_tool(name, {"seconds": "10ms", "seed": seed + 1})
            assert not result.is_error, result.content


def server_instructions(options: tuple[str, ...], name: str, calls: int) -> int:
    """Instructions the server process executes (valgrind's exp-bbv, all its threads; the tool's
    program is a child it does not follow) from start to exit, answering a warm-up call and ``calls``
    calls in one session."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "bbv.out"
        prefix = ("env", "PYTHONHASHSEED=0", "valgrind", "--tool=exp-bbv", "--instr-count-only=yes",
                  f"--bb-out-file={out}")
        process, url = start_server(*options, prefix=prefix, wait=600)
        try:
            asyncio.run(mcp_calls(url, name, 1 + calls))
        finally:
            process.send_signal(signal.SIGTERM)  # valgrind writes the counts as the process exits
            process.wait(timeout=300)
        text = "".join(p.read_text() for p in Path(folder).glob("bbv.out*"))
        return sum(int(c) for c in re.findall(r"Total instructions:\s+(\d+)", text))


def instructions(calls: int) -> dict[str, Any]:
    """Server instructions per call, with the plot and data only: the difference of a run answering
    ``1 + calls`` calls and one answering 1, divided by ``calls``."""
    figures: dict[str, Any] = {"calls": calls}
    for key, options, name in (("plot", (), "rappture_tool"),
                               ("data", ("--no-plot", "--name", "rappture_tool_data"), "rappture_tool_data")):
        low, high = server_instructions(options, name, 0), server_instructions(options, name, calls)
        figures[key] = round((high - low) / calls)
    figures["plot_minus_data"] = figures["plot"] - figures["data"]
    return figures


def summary(values: list[float], digits: int = 3) -> dict[str, float]:
    return {"median": round(statistics.median(values), digits), "min": round(min(values), digits),
            "max": round(max(values), digits)}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--instructions", type=int, default=0, metavar="N",
                        help="also count the server's instructions per call over N calls (valgrind; minutes)")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    plotting, url = start_server()
    data_only, data_url = start_server("--no-plot", "--name", "rappture_tool_data")
    direct, called, data = [], [], []
    try:
        asyncio.run(mcp_call(url, {"seconds": "10ms", "seed": 0}))  # warm imports (pint, matplotlib)
        asyncio.run(mcp_call(data_url, {"seconds": "10ms", "seed": 0}, "rappture_tool_data"))
        direct_run(driver_text(0))
        for round_ in range(args.rounds):
            seed = round_ + 1
            direct.append(direct_run(driver_text(seed)))
            called.append(asyncio.run(mcp_call(url, {"seconds": "1000ms", "seed": seed})))
            data.append(asyncio.run(mcp_call(data_url, {"seconds": "1000ms", "seed": seed}, "rappture_tool_data")))
    finally:
        for process in (plotting, data_only):
            process.terminate()
            process.wait(timeout=30)
    figures = {
        "rounds": args.rounds,
        "load_1min": round(load, 2),
        "direct_s": summary(direct),
        "mcp_call_s": summary(called),
        "overhead_s": summary([c - d for c, d in zip(called, direct, strict=True)]),
        "ratio": summary([c / d for c, d in zip(called, direct, strict=True)]),
        "data_call_s": summary(data),
        "data_overhead_s": summary([c - d for c, d in zip(data, direct, strict=True)]),
        "data_ratio": summary([c / d for c, d in zip(data, direct, strict=True)]),
    }
    if args.instructions and shutil.which("valgrind"):
        figures["server_instructions_per_call"] = instructions(args.instructions)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"Rappture one-second tool, {args.rounds} rounds, 1-minute load {load:.2f} at the start")
    print("| what | median | min | max |")
    print("| --- | --- | --- | --- |")
    for key, label in (
        ("direct_s", "program run directly (s)"),
        ("mcp_call_s", "MCP tools/call, with the PNG plot (s)"),
        ("overhead_s", "overhead, call - direct per round (s)"),
        ("ratio", "ratio, call / direct per round"),
        ("data_call_s", "MCP tools/call, data only (plot=False) (s)"),
        ("data_overhead_s", "overhead, data-only call - direct per round (s)"),
        ("data_ratio", "ratio, data-only call / direct per round"),
    ):
        row = figures[key]
        print(f"| {label} | {row['median']} | {row['min']} | {row['max']} |")
    counted = figures.get("server_instructions_per_call")
    if counted:
        print(f"server instructions per call ({counted['calls']} calls): with the plot {counted['plot']:,}, "
              f"data only {counted['data']:,}, the plot {counted['plot_minus_data']:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
