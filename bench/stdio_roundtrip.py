#!/usr/bin/env python3
"""stdio round trips of ``tools/call add``: nanohubmcp against the official ``mcp`` SDK's and fastmcp's stdio servers.

    python3 bench/stdio_roundtrip.py                 # 3 rounds of 2,000 calls each, interleaved
    python3 bench/stdio_roundtrip.py --calls 500 --rounds 1 --json /tmp/stdio.json

The servers (``bench/servers/ours_stdio.py``, ``sdk_stdio.py``, ``fastmcp_stdio.py``) run under the
repository's ``.venv`` Python (or ``$NANOHUBMCP_PYTHON``) and the peers under ``bench/.venv-peers``
(``--peers-python``; ``bench/run.py`` creates it; without it the SDK runs under ``.venv``, which has
it from the test extra, and fastmcp is left out). All are driven by the same client: this script,
writing one JSON-RPC line and reading the answer,
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
PEERS_PYTHON = ROOT / "bench" / ".venv-peers" / "bin" / "python"
SERVERS = {  # name: (interpreter: "ours" or "peers", script)
    "nanohubmcp": ("ours", ROOT / "bench" / "servers" / "ours_stdio.py"),
    "mcp SDK": ("peers", ROOT / "bench" / "servers" / "sdk_stdio.py"),
    "fastmcp": ("peers", ROOT / "bench" / "servers" / "fastmcp_stdio.py"),
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

    def __init__(self, interpreter: str, script: Path) -> None:
        self.proc = subprocess.Popen(
            [interpreter, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
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
    parser.add_argument("--peers-python", default=str(PEERS_PYTHON), help="interpreter of the SDK and fastmcp")
    parser.add_argument("--json", type=Path, help="also write the figures here (JSON)")
    args = parser.parse_args(argv)
    peers = args.peers_python if Path(args.peers_python).exists() else None
    chosen = {
        name: (python() if kind == "ours" or (peers is None and name == "mcp SDK") else peers, script)
        for name, (kind, script) in SERVERS.items()
    }
    servers = {name: Server(interpreter, script) for name, (interpreter, script) in chosen.items() if interpreter}
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
    # ratios per round (rounds interleave the servers), then the median
    ratios = {
        name: statistics.median(a / b for a, b in zip(results["nanohubmcp"], rates, strict=True))
        for name, rates in results.items()
        if name != "nanohubmcp"
    }
    for name, ratio in ratios.items():
        print(f"nanohubmcp / {name}: {ratio:.2f}x")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "calls": args.calls,
                    "rounds": args.rounds,
                    "calls_per_s": results,
                    "median": medians,
                    "ours_over": ratios,
                    "interpreters": {name: interpreter for name, (interpreter, _) in chosen.items()},
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
