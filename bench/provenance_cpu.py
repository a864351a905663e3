"""Where a provenance record's CPU goes in a c=16 wrk cell, thread by thread (issue 28, perf44p).

Starts the servers as ``run.py`` does (``matrix.PROCESSES``: the ceiling, ``ours``, ``ours-noprov``;
pinned to ``--server-cpu``, this script and wrk to ``--client-cpu``; state directory as run.py
leaves it unless ``--state-dir``), then runs interleaved rounds of one c=16 cell each (order rotated
each round) and reports, per server and per thread (the loop, the provenance writer):

- on-CPU time from ``/proc/PID/task/TID/schedstat`` (nanoseconds, not clock ticks) and the user/system
  split from ``.../stat``, per call;
- voluntary and involuntary context switches per call (``.../status``);
- the time threads waited runnable (schedstat's second field: a sign of the two threads' hand-overs on one core);
- with ``--strace``, one extra cell per server under ``strace -c -f`` (syscalls per call).

Python (3.11) does not name OS threads: the main thread is the loop, "other" is the provenance writer (and any
other thread busy during the cell: with the bench's ``add`` none is). ``--tree-b DIR`` adds a fourth server (records
on) serving nanohubmcp from DIR, measured in the same rotation as the others: an A/B of a change; give
``--state-dir`` then (each server a directory of its own below it; without it they share run.py's default).

The servers listen on run.py's ports + ``--port-offset`` (1000). Where other benches share the host, run it as
run.py is run there (under ``flock /work/team/bench.lock``):
``.venv/bin/python bench/provenance_cpu.py --rounds 6 --seconds 4 [--strace] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpbench import env, matrix, mcp, phases, procs, wrk
from mcpbench.http import Connection

KEYS = ("ceiling", "ours", "ours-noprov")
NAMES = {"ceiling": matrix.CEILING, "ours": matrix.OURS, "ours-noprov": matrix.OURS_NOPROV}
TICKS = os.sysconf("SC_CLK_TCK")


def threads(pid: int) -> dict[str, dict[str, int]]:
    """Per thread (named ``comm:tid``): on-CPU ns, runnable-wait ns, utime/stime ticks, switches."""
    out: dict[str, dict[str, int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
            sched = (task / "schedstat").read_text().split()
            status = (task / "status").read_text().splitlines()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rpartition(")")[2].split()
        table = dict(line.split(":\t", 1) for line in status if ":\t" in line)
        out[f"{comm}:{task.name}"] = {
            "run_ns": int(sched[0]),
            "wait_ns": int(sched[1]),
            "utime": int(fields[11]),
            "stime": int(fields[12]),
            "vol": int(table["voluntary_ctxt_switches"]),
            "invol": int(table["nonvoluntary_ctxt_switches"]),
        }
    return out


def delta(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {
        name: {k: v - before.get(name, dict.fromkeys(row, 0))[k] for k, v in row.items()} for name, row in after.items()
    }


def summarize(d: dict[str, dict[str, int]], calls: int, main_tid: int) -> dict[str, dict[str, float]]:
    groups: dict[str, dict[str, float]] = {}
    for name, row in d.items():
        tid = int(name.rsplit(":", 1)[1])
        group = "loop" if tid == main_tid else ("writer" if name.startswith("nanohubmcp-prov") else "other")
        g = groups.setdefault(group, dict.fromkeys(row, 0.0))
        for k, v in row.items():
            g[k] += v
    per: dict[str, dict[str, float]] = {}
    for group, g in groups.items():
        per[group] = {
            "run_us": g["run_ns"] / 1e3 / calls,
            "wait_us": g["wait_ns"] / 1e3 / calls,
            "user_us": g["utime"] / TICKS * 1e6 / calls,
            "sys_us": g["stime"] / TICKS * 1e6 / calls,
            "vol": g["vol"] / calls,
            "invol": g["invol"] / calls,
        }
    return per


def cell(pid: int, port: int, body: str, headers: dict[str, str], seconds: float) -> dict[str, Any]:
    before = threads(pid)
    result = wrk.run(port, 16, seconds, body, headers, mcp.ADD_EXPECT)
    after = threads(pid)
    calls = result["requests"]
    return {"rps": result["rps"], "calls": calls, "per": summarize(delta(before, after), calls, pid)}


def straced(pid: int, port: int, body: str, headers: dict[str, str], seconds: float, out: Path) -> dict[str, Any]:
    """One cell under ``strace -c -f -p PID``: syscalls per call, by name."""
    tracer = subprocess.Popen(["strace", "-c", "-f", "-o", str(out), "-p", str(pid)], stderr=subprocess.DEVNULL)
    time.sleep(0.5)  # strace attaches to every thread before the cell (no condition to wait on from outside)
    result = wrk.run(port, 16, seconds, body, headers, mcp.ADD_EXPECT)
    tracer.terminate()
    tracer.wait(10)
    counts: dict[str, float] = {}
    for line in out.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] not in ("total",):
            counts[parts[-1]] = int(parts[3]) / max(1, result["requests"])
    return {"rps": result["rps"], "calls": result["requests"], "syscalls_per_call": counts}


async def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--client-cpu", default="1")
    p.add_argument("--tree", help="serve nanohubmcp from this checkout (an A/B's other side)")
    p.add_argument("--tree-b", help="a fourth server, records on, serving nanohubmcp from this checkout (an A/B's B)")
    p.add_argument("--state-dir", help="NANOHUBMCP_STATE_DIR for the servers (default: as run.py leaves it)")
    p.add_argument("--port-offset", type=int, default=1000, help="added to run.py's ports (a full run may use them)")
    p.add_argument("--strace", action="store_true")
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    os.sched_setaffinity(0, {int(c) for c in a.client_cpu.split(",")})
    python = {"ours": str(env.REPO / ".venv" / "bin" / "python")}
    chosen = [dataclasses.replace(pr, port=pr.port + a.port_offset) for pr in matrix.PROCESSES if pr.key in KEYS]
    keys = KEYS
    if a.tree_b:
        b = dataclasses.replace(chosen[1], key="ours-b", port=8330 + a.port_offset, flags=("--tree", a.tree_b))
        chosen.append(b)
        keys = (*KEYS, "ours-b")
        NAMES["ours-b"] = f"nanohubmcp from {a.tree_b}"
    servers = {}
    for pr in chosen:
        if a.state_dir:  # each process a directory of its own (the A/B's two sides must not share a file)
            os.environ["NANOHUBMCP_STATE_DIR"] = f"{a.state_dir}/{pr.key}"
        # (not B's: its own --tree is in its flags, and the servers' option parser keeps the last one given)
        argv_ = pr.argv(python) + (["--tree", a.tree] if a.tree and pr.key not in ("ceiling", "ours-b") else [])
        servers[pr.key] = procs.ServerProcess(argv_, env.BENCH, a.server_cpu)
        servers[pr.key].start()
    try:
        entries = {e.process: e for e in matrix.ENTRIES if e.name in NAMES.values()}
        entries["ours-b"] = entries["ours"]
        prepared = {}
        for pr in chosen:
            if await mcp.wait_ready(phases.HOST, pr.port, 60) is None:
                raise SystemExit(f"{pr.key} did not start")
            conn = Connection(phases.HOST, pr.port)
            try:
                session = await mcp.open_session(conn)
            finally:
                await conn.close()
            e = entries[pr.key]
            body = mcp.call_body(e.tool, mcp.ADD_ARGS, templated=True)
            prepared[pr.key] = (servers[pr.key].pid, pr.port, body, mcp.entry_headers(e, session))
        for key in keys:  # warm-up
            await asyncio.to_thread(cell, *prepared[key], 2.0)
        rounds: dict[str, list[dict[str, Any]]] = {k: [] for k in keys}
        for r in range(a.rounds):
            for key in keys[r % len(keys) :] + keys[: r % len(keys)]:
                rounds[key].append(await asyncio.to_thread(cell, *prepared[key], a.seconds))
            print(f"round {r + 1}: " + ", ".join(f"{k}={rounds[k][-1]['rps']:.0f}/s" for k in keys), flush=True)
        out: dict[str, Any] = {"rounds": rounds, "load": os.getloadavg()}
        if a.strace:
            with tempfile.TemporaryDirectory() as tmp:
                out["strace"] = {
                    k: await asyncio.to_thread(straced, *prepared[k], a.seconds, Path(tmp) / f"{k}.txt") for k in keys
                }
        report(out)
        if a.json:
            a.json.write_text(json.dumps(out, indent=1))
    finally:
        for s in servers.values():
            s.stop()


def report(out: dict[str, Any]) -> None:
    rounds = out["rounds"]
    print("median of rounds, per call: group run_us (user+sys ticks) wait_us vol invol")
    for key in rounds:
        rps = statistics.median(c["rps"] for c in rounds[key])
        print(f"{NAMES[key]}: {rps:.0f} req/s")
        groups = sorted({g for c in rounds[key] for g in c["per"]})
        for g in groups:
            vals = {
                k: statistics.median(c["per"].get(g, {}).get(k, 0.0) for c in rounds[key])
                for k in ("run_us", "user_us", "sys_us", "wait_us", "vol", "invol")
            }
            print(
                f"  {g:7s} run {vals['run_us']:7.1f} us (user {vals['user_us']:6.1f} sys {vals['sys_us']:6.1f}) "
                f"wait {vals['wait_us']:6.1f} us  vol {vals['vol']:.3f} invol {vals['invol']:.3f}"
            )
        total = [sum(p["run_us"] for p in c["per"].values()) for c in rounds[key]]
        print(f"  all     run {statistics.median(total):7.1f} us a call (rounds {min(total):.1f}-{max(total):.1f})")
    for key, s in out.get("strace", {}).items():
        top = sorted(s["syscalls_per_call"].items(), key=lambda kv: -kv[1])[:10]
        print(f"strace {NAMES[key]}: " + ", ".join(f"{n} {v:.3f}" for n, v in top))


if __name__ == "__main__":
    asyncio.run(main())
