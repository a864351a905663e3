#!/usr/bin/env python3
"""stdio round trips of ``tools/call add``: nanohubmcp against the official ``mcp`` SDK's stdio server.

    python3 bench/stdio_roundtrip.py                 # 3 rounds of 2,000 calls each, interleaved
    python3 bench/stdio_roundtrip.py --calls 500 --rounds 1

Both servers (``bench/servers/ours_stdio.py``, ``bench/servers/sdk_stdio.py``) run under the
repository's ``.venv`` Python (or ``$NANOHUBMCP_PYTHON``; the SDK comes with the test extra) and
are driven by the same client: this script, writing one JSON-RPC line and reading the answer,
one call at a time after the ``initialize`` handshake (2025-11-25), so the figure is the server's
round trip. Rounds alternate between the servers; the median of the rounds is reported with the
ratio. Not a test: nothing asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVERS = {
    "nanohubmcp": ROOT / "bench" / "servers" / "ours_stdio.py",
    "mcp SDK": ROOT / "bench" / "servers" / "sdk_stdio.py",
}
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


def python() -> str:
    return os.environ.get("NANOHUBMCP_PYTHON") or str(ROOT / ".venv" / "bin" / "python")


class Server:
    """One server process, spoken to line by line."""

    def __init__(self, script: Path) -> None:
        self.proc = subprocess.Popen(
            [python(), str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT
        )

    def ask(self, message: dict) -> dict:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its stdout")
            reply = json.loads(line)
            if reply.get("id") == message["id"]:
                return reply

    def start(self) -> None:
        self.ask(INIT)
        self.proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def calls_per_second(self, calls: int) -> float:
        started = time.perf_counter()
        for i in range(1, calls + 1):
            reply = self.ask(
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": i, "b": 1}},
                }
            )
            if "result" not in reply or reply["result"].get("isError"):
                raise RuntimeError(f"unexpected reply: {reply}")
        return calls / (time.perf_counter() - started)

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000, help="calls per round (default 2000)")
    parser.add_argument("--warmup", type=int, default=200, help="calls before measuring (default 200)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    servers = {name: Server(script) for name, script in SERVERS.items()}
    results: dict[str, list[float]] = {name: [] for name in servers}
    try:
        for server in servers.values():
            server.start()
            server.calls_per_second(args.warmup)
        for round_ in range(args.rounds):
            for name, server in servers.items():
                rate = server.calls_per_second(args.calls)
                results[name].append(rate)
                print(f"round {round_ + 1}: {name:<12} {rate:9.0f} calls/s", flush=True)
    finally:
        for server in servers.values():
            server.stop()
    medians = {name: statistics.median(rates) for name, rates in results.items()}
    print()
    for name, rate in medians.items():
        print(f"{name:<12} median {rate:9.0f} calls/s")
    print(f"nanohubmcp / mcp SDK: {medians['nanohubmcp'] / medians['mcp SDK']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
