#!/usr/bin/env python3
"""Where nanohubmcp spends its time on the tools/call path: py-spy on the server under wrk load.

    python3 bench/profile.py                 # c=16, 20 s of load, 15 s sampled at 250 Hz
    python3 bench/profile.py --accept json --tool add --seconds 30
    python3 bench/profile.py --era 2026-07-28 --token    # the stateless era, with a bearer token

Starts ``servers/ours.py`` pinned to --server-cpu, loads it with wrk (keep-alive, one session,
``add(1.5, 2.25)``), records with ``py-spy record --format raw`` (py-spy comes with the peers' venv),
and prints: the busiest functions by self time and by inclusive time (% of on-CPU samples), and
the share of each source area (our package by subpackage, tornado, asyncio, json, ...). The raw
collapsed stacks are kept in bench/results/profile-*.txt (load them into speedscope or flamegraph).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpbench import env, mcp, procs, wrk
from mcpbench.http import Connection
from mcpbench.matrix import BOTH, JSON_ONLY, MODERN, PROTOCOL, Entry, process

FRAME = re.compile(r"^(?P<fn>.*) \((?P<file>[^()]*)\)$")


def area(path: str) -> str:
    """A coarse owner for a source file: nanohubmcp/<subpackage>, tornado, asyncio, json, ..."""
    if "/nanohubmcp/" in path:
        rest = path.split("/nanohubmcp/", 1)[1]
        return "nanohubmcp/" + (rest.split("/", 1)[0] if "/" in rest else rest)
    for name in ("tornado", "asyncio", "json", "concurrent", "threading", "selectors", "uuid", "logging"):
        if f"/{name}/" in path or path.endswith(f"/{name}.py"):
            return name
    return "other: " + Path(path).name


def short(frame: str) -> str:
    m = FRAME.match(frame)
    if not m:
        return frame
    path = m["file"]
    for root in ("/nanohubmcp/", "/site-packages/", "/lib/python3"):
        if root in path:
            path = path.split(root, 1)[1]
            if root == "/nanohubmcp/":
                path = "nanohubmcp/" + path
            elif root == "/lib/python3":
                path = "stdlib/" + path.split("/", 1)[1]
            break
    return f"{path}:{m['fn']}"


def analyse(raw: Path, top: int) -> str:
    self_t: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    areas: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [f for f in stack.split(";") if FRAME.match(f)]
        if not frames:
            continue
        total += n
        leaf = frames[-1]
        self_t[short(leaf)] += n
        areas[area(FRAME.match(leaf)["file"])] += n  # type: ignore[index]
        for name in {short(f) for f in frames}:
            incl[name] += n
    if not total:
        return "no samples"
    out = [f"{total} on-CPU samples", "", "self time (the frame itself was running):"]
    out += [f"  {100 * n / total:5.1f}%  {name}" for name, n in self_t.most_common(top)]
    out += ["", "inclusive time (the frame was on the stack):"]
    out += [f"  {100 * n / total:5.1f}%  {name}" for name, n in incl.most_common(top * 2)]
    out += ["", "self time by area:"]
    out += [f"  {100 * n / total:5.1f}%  {name}" for name, n in areas.most_common(top)]
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--conc", type=int, default=16)
    p.add_argument("--seconds", type=float, default=20.0, help="wrk load; py-spy samples all but 5 s of it")
    p.add_argument("--rate", type=int, default=250)
    p.add_argument("--accept", choices=["both", "json"], default="both")
    p.add_argument("--tool", default="add")
    p.add_argument("--progress", action="store_true")
    p.add_argument("--era", choices=[PROTOCOL, MODERN], default=PROTOCOL, help="handshake era or stateless era")
    p.add_argument("--token", action="store_true", help="serve with --token and send it (Authorization: Bearer)")
    p.add_argument("--big", type=int, metavar="N", help="profile big(n=N) instead of add (the large-result path)")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--client-cpu", default="1")
    a = p.parse_args()
    spy = shutil.which("py-spy") or str(env.PEERS_VENV / "bin" / "py-spy")
    if not Path(spy).exists():
        env.peers_python()
    env.ensure_wrk()
    os.sched_setaffinity(0, {int(c) for c in a.client_cpu.split(",")})
    ours = process("ours-token" if a.token else "ours")
    server = procs.ServerProcess(ours.argv({"ours": env.our_python()}), env.BENCH, a.server_cpu)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    raw = env.BENCH / "results" / f"profile-{stamp}.txt"
    raw.parent.mkdir(exist_ok=True)
    with server:
        if asyncio.run(mcp.wait_ready("127.0.0.1", ours.port, 60, token=ours.token)) is None:
            raise SystemExit("server not ready")

        async def session() -> str | None:
            conn = Connection("127.0.0.1", ours.port)
            try:
                return await mcp.open_session(conn, token=ours.token)
            finally:
                await conn.close()

        sid = asyncio.run(session()) if a.era == PROTOCOL else None
        tool, args, expect = ("big", {"n": a.big}, "xxxxxxxx") if a.big else (a.tool, mcp.ADD_ARGS, mcp.ADD_EXPECT)
        entry = Entry(
            "profiled", ours.key, "ours", BOTH if a.accept == "both" else JSON_ONLY, tool, a.progress, a.era, ours.token
        )
        body = mcp.call_body(tool, args, a.progress, templated=True, era=a.era)
        headers = mcp.entry_headers(entry, sid, tool)
        wrk.run(ours.port, a.conc, 3, body, headers, expect)  # warm-up
        cell: dict[str, object] = {}
        load = threading.Thread(
            target=lambda: cell.update(wrk.run(ours.port, a.conc, a.seconds, body, headers, expect, server.pid))
        )
        load.start()
        time.sleep(2)
        subprocess.run(
            [
                spy,
                "record",
                "--pid",
                str(server.pid),
                "--rate",
                str(a.rate),
                "--duration",
                str(max(1, int(a.seconds - 5))),
                "--format",
                "raw",
                "--nolineno",
                "--gil",
                "--full-filenames",
                "--output",
                str(raw),
            ],
            check=True,
            capture_output=True,
            timeout=a.seconds + 60,
        )
        load.join(a.seconds + 60)
    print(
        f"wrk c={a.conc}: {cell.get('rps', 0):.0f} req/s, {cell.get('cpu_us_per_req')} µs CPU/req "
        f"(py-spy pauses the process to sample: figures under profiling are lower than the benchmark's)"
    )
    print(f"raw stacks: {raw.relative_to(env.REPO)}\n")
    print(analyse(raw, a.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
