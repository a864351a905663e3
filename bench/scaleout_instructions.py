#!/usr/bin/env python3
"""Instructions per ``tools/call`` in a worker of ``--workers 2`` against one process (valgrind).

    python3 bench/scaleout_instructions.py                 # every variant, 236 and 492 calls per process
    python3 bench/scaleout_instructions.py --only "2 workers" --calls 100 300

servers/ours.py with Redis state (a real redis-server; ``--lease 600``: the session's record is served
from each process's copy for the whole run, as natively for ~1 s at a time) under
``valgrind --tool=exp-bbv`` (``--log-file=...%p``: each forked worker counts its own threads). One
session; one keep-alive connection per serving process (``ss`` tells which process holds a connection),
the calls sent one at a time, in turn to each process, so each process answers the same number and
both share the session (its holders set names both) and, with the provenance records on, both write
one SQLite file — unless ``BENCH_FILE_PER_WORKER=1`` gives each worker its own state directory
("a file each"). Two runs (``LOW`` and ``HIGH`` calls per process after 20 each); per call is
the serving processes' difference ÷ the calls' difference (start-up and exit cancel out); the
``--workers`` parent (which serves nothing) is reported apart. Redis's commands over the high run
are counted too (``INFO commandstats``), per call.

What this shows: whether a worker of two does more work per call than one process does (a session
shared across processes, a records file shared across processes). What it cannot show: waits (the
interpreter lock, a file lock) and what a busy core does to a process's speed per instruction.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpbench import env, instructions, mcp, procs
from mcpbench.http import Connection
from mcpbench.matrix import Entry
from scaleout import command_calls, free_port

WARMUP = 20
HERE = Path(__file__).resolve().parent


def serving(port: int) -> dict[int, int]:
    """The serving process of each established connection to ``port``, by the client's port."""
    out = subprocess.run(
        ["ss", "-tnpH", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True, timeout=30
    ).stdout
    found = {}
    for line in out.splitlines():
        pid = re.search(r"pid=(\d+)", line)
        peer = line.split()[-2] if "users:" in line else line.split()[-1]
        if pid:
            found[int(peer.rpartition(":")[2])] = int(pid.group(1))
    return found


async def one_per_process(port: int, processes: int, timeout: float) -> list[Connection]:
    """Keep-alive connections to ``port``, one held by each of ``processes`` serving processes."""
    held: dict[int, Connection] = {}
    spare: list[Connection] = []
    for _ in range(64):
        conn = Connection("127.0.0.1", port)
        await conn.request("GET", "/healthz", {}, b"", timeout)  # (any answer opens it)
        if conn.writer is None:
            continue
        mine = conn.writer.get_extra_info("sockname")[1]
        for _ in range(50):
            pid = serving(port).get(mine)
            if pid:
                break
            await asyncio.sleep(0.1)
        if pid and pid not in held:
            held[pid] = conn
        else:
            spare.append(conn)
        if len(held) == processes:
            break
    for conn in spare:
        await conn.close()
    if len(held) < processes:
        raise SystemExit(f"found connections to {len(held)} of {processes} processes")
    return list(held.values())


def threads(logs: Path) -> dict[int, list[int]]:
    """Instructions of each thread (in valgrind's order: the main thread first), by process (a log per pid)."""
    out = {}
    for log in logs.glob("vg.*"):
        counts = [int(m) for m in re.findall(r"Total instructions:\s+(\d+)", log.read_text(errors="replace"))]
        if counts:
            out[int(log.name.split(".")[1])] = counts
    return out


async def run_once(python: str, variant: dict[str, Any], url: str, rport: int, calls: int, timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        tool = ["valgrind", "--tool=exp-bbv", "--instr-count-only=yes", f"--bb-out-file={tmp}/bbv.%p",
                f"--log-file={tmp}/vg.%p"]
        argv = ["env", "PYTHONHASHSEED=0", "BENCH_READ_DISTRIBUTIONS=1", instructions.NATIVE_PATH,
                f"NANOHUBMCP_STATE_DIR={tmp}/state", *variant["env"], *tool, python, str(HERE / "servers" / "ours.py"),
                "--port", str(port), "--state-url", url, "--lease", "600", *variant["flags"]]
        server = procs.ServerProcess(argv, HERE, None, log=Path(tmp) / "server.log")
        server.start()
        parent_pid = server.pid
        entry = Entry("ours", "ours", "ours")
        try:
            if await mcp.wait_ready("127.0.0.1", port, timeout) is None:
                raise SystemExit(f"not ready: {(Path(tmp) / 'server.log').read_text()[-2000:]}")
            first = Connection("127.0.0.1", port)
            session = await mcp.open_session(first, timeout=timeout)
            await first.close()
            conns = await one_per_process(port, variant["processes"], timeout)
            before: dict[str, int] = {}
            for i in range(WARMUP + calls):
                if i == WARMUP:
                    before = command_calls(rport)
                for conn in conns:
                    reply = await mcp.call(conn, entry, session, timeout=timeout)
                    if reply.status != 200 or mcp.ADD_EXPECT.encode() not in reply.body:
                        raise SystemExit(f"call failed: {reply.status} {reply.body[:300]!r}")
            after = command_calls(rport)
            for conn in conns:
                await conn.close()
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            await asyncio.to_thread(server.proc.wait, 300)  # type: ignore[union-attr]
            server.stop()
        by_thread = threads(Path(tmp))
        counted = {pid: sum(counts) for pid, counts in by_thread.items()}
        files = sorted(str(p.relative_to(tmp)) for p in Path(tmp, "state").rglob("provenance.sqlite3"))
        sent = {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0) and k != "info"}
    parent = counted.pop(parent_pid, 0) if variant["processes"] > 1 else 0
    by_thread.pop(parent_pid, None)
    return {"serving": sum(counted.values()), "by_process": counted, "parent": parent, "files": files,
            "main_threads": sum(counts[0] for counts in by_thread.values()),
            "commands": sent, "calls": calls * variant["processes"]}


VARIANTS = {
    "1 process": {"flags": [], "env": [], "processes": 1},
    "2 workers": {"flags": ["--workers", "2"], "env": [], "processes": 2},
    "2 workers, a file each": {"flags": ["--workers", "2"], "env": ["BENCH_FILE_PER_WORKER=1"], "processes": 2},
    "1 process, no provenance": {"flags": ["--no-provenance"], "env": [], "processes": 1},
    "2 workers, no provenance": {"flags": ["--workers", "2", "--no-provenance"], "env": [], "processes": 2},
}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, nargs=2, default=list(instructions.CALLS), metavar=("LOW", "HIGH"),
                   help="calls per serving process after the warm-up, in the two runs")
    p.add_argument("--only", default="", help="comma-separated variant names (substrings)")
    p.add_argument("--timeout", type=float, default=300.0)
    a = p.parse_args()
    python = env.our_python()
    wanted = [w.strip() for w in a.only.split(",") if w.strip()]
    variants = {k: v for k, v in VARIANTS.items() if not wanted or any(w in k for w in wanted)}
    work = Path(tempfile.mkdtemp(prefix="scaleout-instr-"))
    rport = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(rport), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", str(work)], stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{rport}/0"
    out: dict[str, Any] = {"calls": a.calls, "variants": {}}
    try:
        time.sleep(0.5)
        for name, variant in variants.items():
            runs = [asyncio.run(run_once(python, variant, url, rport, n, a.timeout)) for n in a.calls]
            low, high = runs
            per = (high["serving"] - low["serving"]) / (high["calls"] - low["calls"])
            loops = (high["main_threads"] - low["main_threads"]) / (high["calls"] - low["calls"])
            commands = {k: v / high["calls"] for k, v in high["commands"].items()}
            out["variants"][name] = {"per_call": per, "loop_per_call": loops, "runs": runs,
                                     "commands_per_call": commands}
            print(f"{name:28s} {per:12,.0f} instructions per call (main threads {loops:,.0f});"
                  f" parent {low['parent']:,} / {high['parent']:,};"
                  f" files {high['files']}; Redis commands per call {sum(commands.values()):.4f} {commands}",
                  flush=True)
    finally:
        redis.terminate()
        redis.wait(10)
    dest = HERE / "results" / f"scaleout-instructions-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.json"
    dest.write_text(json.dumps(out, indent=2))
    print(f"wrote {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
