"""Instructions per HTTP request: our Streamable HTTP edge against the bare-Tornado ceiling.

    .venv/bin/python bench/edge_cost.py [--before CHECKOUT] [--after CHECKOUT] [--low 40 --high 240]

Each server (``bench/servers/ceiling_tornado.py``; ``bench/servers/ours.py --no-provenance``, and the
same with ``--tree CHECKOUT`` for another checkout's code) runs under ``valgrind --tool=exp-bbv
--instr-count-only=yes`` twice, answering ``low`` and then ``high`` requests after the same
session opening and warm-up, one at a time on one keep-alive connection (``http.client``). The
difference of the two totals divided by ``high - low`` is what one request costs the server
process in user-space instructions (all threads, summed from valgrind's log; start-up and shut-down cancel out; the load of
the machine does not move it). Two requests are counted:

- ``ping``: what the HTTP edge and the connection seam cost with the least behind them (the
  dispatcher answers ``{}``);
- ``tools/call add``: the whole call (provenance off).

Not a test: nothing asserts a figure. Results go to ``bench/hotpath.md`` ("HTTP edge").
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable
WARMUP = 20
VERSION = "2025-11-25"
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": VERSION,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.2)
    raise RuntimeError(f"no server on port {port} after {timeout} s")


def drive(port: int, method: str, calls: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

    def post(message: dict, session: str | None) -> http.client.HTTPResponse:
        headers = dict(HEADERS)
        if session:
            headers["Mcp-Session-Id"] = session
        conn.request("POST", "/mcp", body=json.dumps(message), headers=headers)
        reply = conn.getresponse()
        reply.read()
        return reply

    init = post(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": VERSION,
                "capabilities": {},
                "clientInfo": {"name": "edge-cost", "version": "0"},
            },
        },
        None,
    )
    session = init.getheader("Mcp-Session-Id")
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    params = {"name": "add", "arguments": {"a": 1.5, "b": 2.25}} if method == "tools/call" else {}
    for seq in range(1, WARMUP + calls + 1):
        reply = post({"jsonrpc": "2.0", "id": seq, "method": method, "params": params}, session)
        if reply.status != 200:
            raise RuntimeError(f"{method} answered {reply.status}")
    conn.close()


def count(argv: list[str], method: str, calls: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        # Every thread's total goes to valgrind's log (the --bb-out-file holds the main thread's only).
        out = Path(tmp) / "valgrind.log"
        port = free_port()
        cmd = [
            "env",
            "PYTHONHASHSEED=0",
            "valgrind",
            "--tool=exp-bbv",
            "--instr-count-only=yes",
            f"--bb-out-file={tmp}/bbv.out",
            f"--log-file={out}",
            *argv,
            "--port",
            str(port),
        ]
        proc = subprocess.Popen(
            cmd, cwd=HERE / "servers", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        try:
            wait_ready(port, 300)
            drive(port, method, calls)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(180)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        text = out.read_text(errors="replace") if out.exists() else ""
        totals = [int(m) for m in re.findall(r"Total instructions:\s+(\d+)", text)]
        if not totals:
            raise RuntimeError(f"no instruction count from {argv}")
        return sum(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="another checkout, served by bench/servers/ours.py --tree")
    parser.add_argument("--after", help="serve this checkout's code from a copy (default: the installed one)")
    parser.add_argument("--low", type=int, default=40)
    parser.add_argument("--high", type=int, default=240)
    parser.add_argument("--methods", default="ping,tools/call")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    servers = {
        "bare Tornado (ceiling)": [PY, "ceiling_tornado.py"],
        "nanohubmcp (this checkout), provenance off": [
            PY,
            "ours.py",
            "--no-provenance",
            *(["--tree", opts.after] if opts.after else []),
        ],
    }
    if opts.before:
        servers["nanohubmcp (before), provenance off"] = [PY, "ours.py", "--no-provenance", "--tree", opts.before]
    results: dict[str, dict[str, float]] = {}
    for method in opts.methods.split(","):
        for name, argv in servers.items():
            low, high = count(argv, method, opts.low), count(argv, method, opts.high)
            per = (high - low) / (opts.high - opts.low)
            results.setdefault(name, {})[method] = per
            print(f"{method:10} {name:45} {per:12,.0f} instructions/request", flush=True)
    if opts.json:
        print(json.dumps(results, indent=1))
    ceiling = results.get("bare Tornado (ceiling)", {})
    for name, row in results.items():
        ratios = ", ".join(f"{m} {v / ceiling[m]:.2f}x" for m, v in row.items() if ceiling.get(m))
        print(f"{name}: {ratios}")


if __name__ == "__main__":
    main()
