#!/usr/bin/env python3
"""What an SSE-answered call costs with Redis state: Redis's CPU, the server's, and Redis's memory.

    python3 bench/event_log_cost.py                  # 2000 calls, 100-character answers
    python3 bench/event_log_cost.py --calls 400 --size 250000

One ``nanohubmcp run tests/scaleout/app.py --state-url redis://…`` process on a redis-server of its
own; one session calls ``progress_blob`` (a progress report, then the answer) as the official client
does (a progress token, ``Accept`` naming ``text/event-stream``), so each answer is an SSE stream whose
messages go to an event log in Redis. Printed per call: Redis's CPU (``INFO cpu``) and the microseconds
its commands took (``INFO commandstats``, the figure the machine's other load moves least), the
server process's CPU, and Redis's ``used_memory`` growth in all. Run it under ``flock
/work/team/bench.lock`` on a shared host; ``PYTHONPATH`` picks the checkout measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx
import redis

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def redis_cost(store: redis.Redis) -> tuple[float, float]:
    cpu = store.info("cpu")
    usec = sum(int(v["usec"]) for v in store.info("commandstats").values())
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]), float(usec)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--size", type=int, default=100)
    a = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="evlog-"))
    rport, port = free_port(), free_port()
    rproc = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", str(rport), "--save", "",
                              "--appendonly", "no", "--dir", str(work)], stdout=subprocess.DEVNULL)
    wait_port(rport)
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(work / "state"), "MCP_TOKEN": ""}
    server = subprocess.Popen([sys.executable, "-m", "nanohubmcp", "run", str(ROOT / "tests/scaleout/app.py"),
                               "--port", str(port), "--state-url", f"redis://127.0.0.1:{rport}/0"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        url = f"http://127.0.0.1:{port}/mcp"
        store = redis.Redis(port=rport, decode_responses=True)
        hdr = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
        with httpx.Client(timeout=30) as client:
            init = client.post(url, headers=hdr, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}})
            hdr["Mcp-Session-Id"] = init.headers["Mcp-Session-Id"]
            client.post(url, headers=hdr, json={"jsonrpc": "2.0", "method": "notifications/initialized"})

            def calls(first: int, count: int) -> None:
                for rid in range(first, first + count):
                    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {
                        "name": "progress_blob", "arguments": {"n": a.size}, "_meta": {"progressToken": rid}}}
                    reply = client.post(url, headers=hdr, json=body)
                    assert reply.headers["content-type"].startswith("text/event-stream"), reply.text

            calls(1, 100)  # warm-up
            time.sleep(0.5)
            mem0 = int(store.info("memory")["used_memory"])
            rcpu0, usec0 = redis_cost(store)
            scpu0 = cpu_of(server.pid)
            started = time.monotonic()
            calls(1000, a.calls)
            elapsed = time.monotonic() - started
            time.sleep(0.5)  # the last writes (queued) land
            rcpu1, usec1 = redis_cost(store)
            scpu1 = cpu_of(server.pid)
            mem1 = int(store.info("memory")["used_memory"])
        out = {
            "calls": a.calls, "size": a.size, "calls_per_s": round(a.calls / elapsed, 1),
            "redis_cpu_us_per_call": round((rcpu1 - rcpu0) / a.calls * 1e6, 1),
            "redis_command_us_per_call": round((usec1 - usec0) / a.calls, 1),
            "server_cpu_us_per_call": round((scpu1 - scpu0) / a.calls * 1e6, 1),
            "redis_used_memory_growth_mb": round((mem1 - mem0) / 1e6, 2),
        }
        print(json.dumps(out))
    finally:
        server.terminate()
        server.wait(20)
        rproc.terminate()
        rproc.wait(20)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
