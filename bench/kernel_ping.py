"""Ping latency of a nanohubmcp server living in a Jupyter kernel while a cell computes.

Run with the project's interpreter (it needs ``jupyter_client`` and ``ipykernel``):

    .venv/bin/python bench/kernel_ping.py --seconds 10 [--cpu 0]

For each mode (``thread``: the server has its own loop in a daemon thread; ``kernel``: it shares
the kernel's loop), a real kernel is started and the server is started the notebook way
(``%load_ext nanohubmcp``, ``%config NanohubMCP.mode``, a ``%%mcp_tool`` cell; with ``--facade`` or
before nanohubmcp.jupyter existed: ``MCPServer.start(loop=...)``), and MCP ``ping`` requests
go to it every 10 ms over one kept-alive connection: first while the kernel is idle, then while
a cell runs pure-Python work (a loop of integer arithmetic, no I/O) for ``--seconds``. Prints one
JSON object: per mode and phase, the number of pings, p50/p99/max latency in ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

from jupyter_client.manager import start_new_kernel

# The notebook way (nanohubmcp.jupyter): the extension's settings, then a %%mcp_tool cell starts it.
NOTEBOOK_SETUP = """
%load_ext nanohubmcp
%config NanohubMCP.port = {port}
%config NanohubMCP.mode = {mode!r}
%config NanohubMCP.token = ''
"""
NOTEBOOK_TOOL = """%%mcp_tool
def add(a: float, b: float) -> float:
    \"\"\"Sum of two numbers.\"\"\"
    return a + b
"""
# Without nanohubmcp.jupyter: the facade's background start.
START = """
from nanohubmcp import MCPServer
_bench_server = MCPServer("kernel-bench")

@_bench_server.tool()
def add(a: float, b: float) -> float:
    return a + b

_bench_server.start(host="127.0.0.1", port={port}, loop={loop!r})
"""
LOOPS = {"thread": "thread", "kernel": "current"}  # mode name -> MCPServer.start(loop=...)
HAS_JUPYTER = "import importlib.util, sys; sys.exit(importlib.util.find_spec('nanohubmcp.jupyter') is None)"
BUSY = """
_t_end = __import__("time").perf_counter() + {seconds}
_n = 0
while __import__("time").perf_counter() < _t_end:
    for _i in range(10000):
        _n = (_n * 31 + _i) % 1000003
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Pinger:
    """Sends MCP pings on one connection until stopped; keeps the latencies (ms)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        }
        self.times: list[float] = []
        self.failed = 0
        self.seq = 0

    def post(self, message: dict) -> http.client.HTTPResponse:
        self.conn.request("POST", "/mcp", json.dumps(message), self.headers)
        reply = self.conn.getresponse()
        reply.read()
        return reply

    def open(self) -> None:
        reply = self.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "ping", "version": "1"},
                },
            }
        )
        session = reply.getheader("Mcp-Session-Id")
        if session:
            self.headers["Mcp-Session-Id"] = session
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def run(self, stop: threading.Event, every: float = 0.01) -> None:
        while not stop.is_set():
            self.seq += 1
            t0 = time.perf_counter()
            try:
                reply = self.post({"jsonrpc": "2.0", "id": self.seq, "method": "ping"})
                if reply.status == 200:
                    self.times.append((time.perf_counter() - t0) * 1000)
                else:
                    self.failed += 1
            except OSError:
                self.failed += 1
                self.conn.close()
            stop.wait(every)


def summary(times: list[float], failed: int) -> dict[str, float | int | None]:
    ordered = sorted(times)

    def at(p: float) -> float | None:
        return (
            round(ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))], 2) if ordered else None
        )

    return {
        "pings": len(times),
        "failed": failed,
        "p50_ms": at(50),
        "p99_ms": at(99),
        "max_ms": round(max(times), 2) if times else None,
        "mean_ms": round(statistics.fmean(times), 2) if times else None,
    }


def one_mode(
    mode: str, seconds: float, cpu: str | None, notebook: bool, switch_interval: float | None = None
) -> dict[str, object]:
    port = free_port()
    mine = os.sched_getaffinity(0)
    if cpu:  # the kernel inherits the affinity at spawn; the pinger then goes back
        os.sched_setaffinity(0, {int(c) for c in cpu.split(",")})
    try:
        manager, client = start_new_kernel(kernel_name="python3", startup_timeout=60)
    finally:
        os.sched_setaffinity(0, mine)
    try:
        cells = [f"import sys; sys.setswitchinterval({switch_interval})"] if switch_interval else []
        if notebook:
            cells += [NOTEBOOK_SETUP.format(port=port, mode=mode), NOTEBOOK_TOOL]
        else:
            cells += [START.format(port=port, loop=LOOPS[mode])]
        for cell in cells:
            reply = client.execute_interactive(cell, timeout=30, output_hook=lambda msg: None)
            if reply["content"]["status"] != "ok":
                return {"error": f"{reply['content'].get('ename')}: {reply['content'].get('evalue')}"}
        pinger = Pinger(port)
        pinger.open()
        out: dict[str, object] = {}
        for phase in ("idle", "busy"):
            pinger.times, pinger.failed = [], 0
            stop = threading.Event()
            thread = threading.Thread(target=pinger.run, args=(stop,), daemon=True)
            thread.start()
            if phase == "busy":
                client.execute_interactive(
                    BUSY.format(seconds=seconds), timeout=seconds + 60, output_hook=lambda msg: None
                )
            else:
                time.sleep(min(seconds, 3.0))
            stop.set()
            thread.join(35)
            out[phase] = summary(pinger.times, pinger.failed)
        out["cell_seconds"] = seconds
        out["switch_interval"] = switch_interval
        out["started_by"] = (
            "%%mcp_tool (nanohubmcp.jupyter)" if notebook else f"MCPServer.start(loop={LOOPS[mode]!r})"
        )
        return out
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=10.0, help="how long the busy cell computes")
    p.add_argument("--cpu", help="pin the kernel to this CPU list (the pinger stays where it is)")
    p.add_argument("--modes", default="thread,kernel")
    p.add_argument(
        "--switch-interval", type=float, help="experiment: sys.setswitchinterval(s) in the kernel first"
    )
    p.add_argument(
        "--facade", action="store_true", help="start with MCPServer.start even if the extension exists"
    )
    a = p.parse_args()
    notebook = not a.facade and subprocess.run([sys.executable, "-c", HAS_JUPYTER]).returncode == 0
    results = {
        mode: one_mode(mode, a.seconds, a.cpu, notebook, a.switch_interval) for mode in a.modes.split(",")
    }
    print(json.dumps(results))


if __name__ == "__main__":
    main()
