#!/usr/bin/env python3
"""Scale-out figures: throughput of 1 vs 2 processes, the CPU Redis state costs, Redis memory per session.

    python3 bench/scaleout.py                      # 3 rounds x 8 s per variant at c=16
    python3 bench/scaleout.py --rounds 5 --seconds 10

Variants (``nanohubmcp run servers/scaleout_app.py``, a tools/call of ``add`` in one session):

- ``memory, 1 process``: the default state (this process's memory);
- ``redis, 1 process``: ``--state-url redis://…`` (each request loads its session from Redis);
- ``redis, 2 workers``: ``--workers 2`` on one port (the 2-core host's ceiling).

wrk runs on its own CPU core (``--client-cpu``) and the servers on the rest; each round runs every
variant once in rotated order; the median req/s and server CPU per call (the process tree's
user+system CPU, Redis's own CPU counted apart) are printed. Then ``--sessions`` sessions are
opened against Redis state and Redis's ``used_memory`` growth per session is reported. Prints a
table and writes bench/results/scaleout-<utc>.json. Needs wrk and redis-server (Debian packages).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpbench import env, instructions, matrix, mcp, procs, wrk
from mcpbench.http import Connection
from mcpbench.phases import rotate

APP = Path(__file__).resolve().parent / "servers" / "scaleout_app.py"
CEILING = Path(__file__).resolve().parent / "servers" / "ceiling_workers.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_cli(port: int, *args: str) -> str:
    return subprocess.run(
        ["redis-cli", "-p", str(port), *args], capture_output=True, text=True, check=True, timeout=30
    ).stdout


def redis_memory(port: int) -> int:
    info = redis_cli(port, "info", "memory")
    return int(next(ln.split(":")[1] for ln in info.splitlines() if ln.startswith("used_memory:")))


def redis_cpu(pid: int) -> float:
    return procs.cpu_seconds(pid)


def worker_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each serving process under ``pid`` (the workers when it forked, else itself)."""
    tree = [p for p in procs.tree(pid) if p != pid] or [pid]
    return {p: procs.cpu_seconds(p) for p in tree if not list(procs.tree(p))[1:]} or {pid: procs.cpu_seconds(pid)}


async def open_session(port: int) -> str | None:
    conn = Connection("127.0.0.1", port)
    try:
        return await mcp.open_session(conn)
    finally:
        await conn.close()


async def open_sessions(port: int, count: int) -> int:
    conn = Connection("127.0.0.1", port)
    opened = 0
    try:
        for _ in range(count):
            opened += bool(await mcp.open_session(conn))
    finally:
        await conn.close()
    return opened


async def count_instructions(python: str, url: str, calls: list[int], tree: str | None) -> dict[str, Any]:
    """Instructions per ``add`` call of servers/ours.py with memory and Redis state (and the
    ``tree`` checkout's, when given), each under valgrind one call at a time (mcpbench.instructions)."""
    pairs = []
    # Provenance off: its first-call inventory (a background read) lands in one run or the other
    # depending on timing, which swamps the difference of 80 calls.
    # The lease covers the whole run (one call takes ~1 s under valgrind): a session in use.
    for label, flags in (("memory", ("--no-provenance",)), ("redis", ("--no-provenance", "--state-url", url))):
        for when, extra in (("", ("--lease", "600")), (", before", ("--tree", tree) if tree else None)):
            if extra is None or (label == "memory" and when):
                continue
            key = f"{label}{when}"
            process = matrix.Process(key, "ours", "ours.py", free_port(), (*flags, *extra), streams=False)
            pairs.append((process, matrix.Entry(key, key, "ours")))
    return await instructions.measure(pairs, {"ours": python}, calls[0], calls[1], 300.0, print)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--conc", type=int, default=16)
    p.add_argument("--sessions", type=int, default=2000)
    p.add_argument("--server-cpu", default="0-1")
    p.add_argument("--client-cpu", default="1")
    p.add_argument("--json", type=Path, help="also write the figures here (run.py's raw data)")
    p.add_argument("--before", help="another checkout's python: its memory and Redis 1-process variants too")
    p.add_argument(
        "--instructions", type=int, nargs=2, metavar=("LOW", "HIGH"), help="also count instructions per call (valgrind)"
    )
    p.add_argument("--tree", help="with --instructions and --before: the before checkout's source tree")
    p.add_argument("--only", default="", help="comma-separated substrings: run only the variants naming one")
    a = p.parse_args()
    env.ensure_wrk()
    if not shutil.which("redis-server"):
        raise SystemExit("redis-server is required (apt-get install redis-server)")
    python = env.our_python()
    os.sched_setaffinity(0, {int(c) for c in a.client_cpu.split(",")})
    work = Path(tempfile.mkdtemp(prefix="scaleout-bench-"))
    rport = free_port()
    redis = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(rport),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(work),
        ],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{rport}/0"
    ours = [python, "-m", "nanohubmcp", "run", str(APP)]
    ceiling = [python, str(CEILING)]
    variants = {
        "ceiling, 1 process": [*ceiling],
        "ceiling, 2 workers": [*ceiling, "--workers", "2"],
        "ceiling, 2 workers, reuse_port": [*ceiling, "--workers", "2", "--reuse-port"],
        "memory, 1 process": [*ours],
        "redis, 1 process": [*ours, "--state-url", url],
        "redis, 2 workers": [*ours, "--state-url", url, "--workers", "2"],
    }
    if a.before:
        before = [a.before, "-m", "nanohubmcp", "run", str(APP)]
        variants["memory, 1 process, before"] = [*before]
        variants["redis, 1 process, before"] = [*before, "--state-url", url]
    if a.only:
        wanted = [w.strip() for w in a.only.split(",") if w.strip()]
        variants = {k: v for k, v in variants.items() if any(w in k for w in wanted)}
    servers, ports, sessions = {}, {}, {}
    counted: dict[str, Any] | None = None
    cells: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    try:
        time.sleep(0.5)
        for name, extra in variants.items():
            ports[name] = free_port()
            servers[name] = procs.ServerProcess(
                [*extra, "--port", str(ports[name])],
                work,
                a.server_cpu,
                log=work / f"{ports[name]}.log",
            )
            servers[name].start()
        for name in variants:
            if asyncio.run(mcp.wait_ready("127.0.0.1", ports[name], 60)) is None:
                raise SystemExit(f"{name} not ready: {(work / f'{ports[name]}.log').read_text()[-2000:]}")
            sessions[name] = asyncio.run(open_session(ports[name]))
        body = mcp.call_body("add", mcp.ADD_ARGS, templated=True)
        for name in variants:  # warm-up
            wrk.run(ports[name], a.conc, 2, body, mcp.headers(session=sessions[name]), mcp.ADD_EXPECT)
        for r in range(a.rounds):
            for name in rotate(list(variants), r):
                redis0 = redis_cpu(redis.pid)
                workers0 = worker_cpu(servers[name].pid)
                wrk0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cell = wrk.run(
                    ports[name],
                    a.conc,
                    a.seconds,
                    body,
                    mcp.headers(session=sessions[name]),
                    mcp.ADD_EXPECT,
                    server_pid=servers[name].pid,
                )
                redis_ms = (redis_cpu(redis.pid) - redis0) * 1000
                wrk1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                wrk_ms = (wrk1.ru_utime + wrk1.ru_stime - wrk0.ru_utime - wrk0.ru_stime) * 1000
                spent = {pid: cpu - workers0.get(pid, 0.0) for pid, cpu in worker_cpu(servers[name].pid).items()}
                busiest = max(spent.values()) / max(1e-9, sum(spent.values())) if len(spent) > 1 else 1.0
                cells[name].append(
                    {
                        "rps": cell["rps"],
                        "cpu_ms": (cell.get("cpu_us_per_req") or 0.0) / 1000,
                        "redis_cpu_ms": redis_ms / cell["requests"] if cell["requests"] else 0.0,
                        "errors": sum(cell["errors"].values()) + cell["wrong"],
                        "busiest_worker_share": busiest,
                        "wrk_cpu_ms": wrk_ms / cell["requests"] if cell["requests"] else 0.0,
                    }
                )
                print(f"round {r + 1} {name:20s} {cell['rps']:8.0f} req/s", flush=True)
        for server in servers.values():
            server.stop()
        # Memory per session held in Redis: open sessions against a fresh Redis-backed process.
        if a.instructions:
            counted = asyncio.run(count_instructions(python, url, a.instructions, a.tree))
        per_session, opened = 0.0, 0
        if a.sessions:
            redis_cli(rport, "flushall")
            port = free_port()
            holder = procs.ServerProcess(
                [python, "-m", "nanohubmcp", "run", str(APP), "--port", str(port), "--state-url", url],
                work,
                a.server_cpu,
            )
            holder.start()
            asyncio.run(mcp.wait_ready("127.0.0.1", port, 60))
            before = redis_memory(rport)
            opened = asyncio.run(open_sessions(port, a.sessions))
            per_session = (redis_memory(rport) - before) / max(1, opened)
            holder.stop()
    finally:
        for server in servers.values():
            server.stop()
        redis.terminate()
        redis.wait(10)
    summary = {name: {k: statistics.median(c[k] for c in cs) for k in cs[0]} for name, cs in cells.items()}
    print(f"\n{'variant':32s} {'req/s':>8s} {'server CPU ms/call':>19s} {'redis':>7s} {'wrk':>7s} {'busiest':>8s}")
    for name, s in summary.items():
        print(
            f"{name:32s} {s['rps']:8.0f} {s['cpu_ms']:19.3f} {s['redis_cpu_ms']:7.3f} {s['wrk_cpu_ms']:7.3f}"
            f" {s['busiest_worker_share']:8.2f}"
        )
    print(f"\nRedis memory per held session: {per_session:.0f} bytes ({opened} sessions)")
    if counted:
        print("\ninstructions per tools/call, one at a time (valgrind):")
        for name, entry in counted["entries"].items():
            print(f"  {name:32s} {entry['per_call'] or 0:12,.0f}")
    out = Path(__file__).resolve().parent / "results" / f"scaleout-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.json"
    out.parent.mkdir(exist_ok=True)
    figures = {
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(a).items()},
        "cells": cells,
        "summary": summary,
        "redis_bytes_per_session": per_session,
        "instructions": counted,
        "host_load": os.getloadavg(),
    }
    out.write_text(json.dumps(figures, indent=2))
    if a.json:
        a.json.write_text(json.dumps(figures, indent=2))
    print(f"wrote {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
