#!/usr/bin/env python3
"""Benchmark nanohubmcp against its peers and a bare Tornado ceiling, in one run, on loopback.

    python3 bench/run.py            # full run (~20 min): writes bench/results.md + bench/results/*.json
    python3 bench/run.py --quick    # smoke run (~5 min): writes bench/results/quick.md
    python3 bench/run.py --only ours,legacy --rounds 1    # a subset (the ceiling is always kept)
    python3 bench/run.py --render bench/results/run-<utc>.json --md /tmp/x.md   # tables from raw data

It installs wrk (apt, when root) and the peers into bench/.venv-peers if they are missing, runs our
server with the repository's .venv interpreter, pins servers to --server-cpu and itself plus wrk
to --client-cpu, and bounds every step in time. Only processes it started are signalled.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpbench import env, extras, instructions, kernel, matrix, mcp, phases, procs, report, startup_count
from mcpbench.http import Connection
from mcpbench.matrix import Entry, Process, select

T0 = time.perf_counter()


def log(text: str) -> None:
    print(f"[{time.perf_counter() - T0:7.1f}s] {text}", flush=True)


def options(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="short smoke run (~5 min) to bench/results/quick.md")
    p.add_argument("--only", help="comma list of server keys (ceiling,ours,legacy,sdk,sdk-json,fastmcp,fastmcp-json)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--duration", type=float, default=6.0, help="seconds per wrk cell")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds of c=16 load per server first")
    p.add_argument("--conc", default="1,16,64")
    p.add_argument("--coldstart-runs", type=int, default=5)
    p.add_argument("--streams", type=int, default=2000, help="sessions holding a GET stream (our server)")
    p.add_argument("--peer-streams", type=int, default=500, help="the same for the other servers")
    p.add_argument("--hold", type=float, default=5.0, help="seconds the streams are held")
    p.add_argument("--big-n", type=int, default=1_000_000)
    p.add_argument("--big-calls", type=int, default=10)
    p.add_argument("--kernel-seconds", type=float, default=10.0)
    p.add_argument(
        "--skip",
        default="",
        help="comma list of: coldstart,load,big,streams,instructions,kernel," + ",".join(extras.SECTIONS),
    )
    p.add_argument("--instr-calls", default=",".join(map(str, instructions.CALLS)),
                   help="calls of the two valgrind runs per server (whole batches of provenance records)")
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--client-cpu", default="1")
    p.add_argument("--start-timeout", type=float, default=60.0)
    p.add_argument(
        "--state-dir",
        type=Path,
        help="NANOHUBMCP_STATE_DIR for the servers (default: a fresh temporary directory, removed at the end)",
    )
    p.add_argument("--server-log", type=Path, help="append server output here (default: discarded)")
    p.add_argument("--render", type=Path, help="only re-render the markdown from this raw JSON (no measuring)")
    p.add_argument("--md", type=Path, help="markdown output (default bench/results.md; quick: results/quick.md)")
    a = p.parse_args(argv)
    if a.quick:
        a.rounds, a.duration, a.warmup, a.coldstart_runs = 1, 1.0, 1.0, 2  # wrk counts whole seconds
        a.streams, a.peer_streams, a.hold, a.big_calls, a.kernel_seconds = 300, 100, 1.5, 3, 3.0
    a.conc_list = [int(c) for c in a.conc.split(",") if c]
    a.skip_set = {s for s in a.skip.split(",") if s}
    a.md = a.md or (env.BENCH / "results" / "quick.md" if a.quick else env.BENCH / "results.md")
    return a


async def measure(
    a: argparse.Namespace, processes: tuple[Process, ...], entries: tuple[Entry, ...], python: dict[str, str]
) -> dict[str, object]:
    def make(p: Process) -> procs.ServerProcess:
        return procs.ServerProcess(p.argv(python), env.BENCH, a.server_cpu or None, a.server_log)

    out: dict[str, object] = {
        "order": [e.name for e in entries],
        "processes": {
            p.key: {
                "argv": p.argv({"ours": "../.venv/bin/python", "peers": ".venv-peers/bin/python"}),
                "port": p.port,
            }
            for p in processes
        },
        "entries": {
            e.name: {
                "process": e.process,
                "role": e.role,
                "accept": e.accept,
                "tool": e.tool,
                "progress": e.progress,
                "era": e.era,
                "token": bool(e.token),
                "note": e.note,
            }
            for e in entries
        },
    }
    if "coldstart" not in a.skip_set:
        # the json_response/stateless variants and the token process run the same code as their defaults
        cold = [p for p in processes if "--json" not in p.flags and not p.token and p.cold]
        out["coldstart"] = await phases.cold_start(cold, make, a.coldstart_runs, a.start_timeout, log)
    servers = {p.key: make(p) for p in processes}
    try:
        for s in servers.values():
            s.start()
        for p in processes:
            if await mcp.wait_ready(phases.HOST, p.port, a.start_timeout, token=p.token) is None:
                raise SystemExit(f"{p.key} did not answer initialize within {a.start_timeout} s")
        await asyncio.sleep(1.5)
        out["rss_idle_kib"] = {k: procs.rss_kib(s.pid) for k, s in servers.items()}
        out["threads_idle"] = {k: procs.threads(s.pid) for k, s in servers.items()}
        ports = {p.key: p.port for p in processes}
        pids = {k: s.pid for k, s in servers.items()}
        sessions, probes = {}, {}
        for e in entries:
            conn = Connection(phases.HOST, ports[e.process])
            try:
                sessions[e.name] = await mcp.open_session(conn, token=e.token) if e.era == matrix.PROTOCOL else None
                reply = await mcp.call(conn, e, sessions[e.name])
            finally:
                await conn.close()
            probes[e.name] = {
                "status": reply.status,
                "content_type": reply.header("content-type"),
                "bytes": len(reply.body),
                "http": reply.version,
                "keep_alive": reply.header("connection").lower() != "close" and reply.version == "HTTP/1.1",
                "body": reply.body[:300].decode("utf-8", "replace"),
            }
            if reply.status != 200 or mcp.ADD_EXPECT.encode() not in reply.body:
                raise SystemExit(f"probe failed for {e.name}: {probes[e.name]}")
        out["probe"] = probes
        log("servers up, probes ok: " + ", ".join(f"{k}={v['content_type']}" for k, v in probes.items()))
        if "load" not in a.skip_set:
            out["load"] = await phases.load_rounds(
                list(entries), pids, sessions, ports, a.conc_list, a.rounds, a.duration, a.warmup, log
            )
            await asyncio.sleep(1.0)
            out["rss_after_load_kib"] = {k: procs.rss_kib(s.pid) for k, s in servers.items()}
            out["threads_after_load"] = {k: procs.threads(s.pid) for k, s in servers.items()}
        if "big" not in a.skip_set:
            big: dict[str, list[object]] = {e.name: [] for e in entries if e.big}
            for r in range(a.rounds):
                for e in phases.rotate([e for e in entries if e.big], r):
                    big[e.name].append(
                        await phases.big_result(
                            e, ports[e.process], pids[e.process], sessions[e.name], a.big_n, a.big_calls, 10.0
                        )
                    )
            out["big"] = big
            log("1 MB results done")
    finally:
        for s in servers.values():
            s.stop()
    if "streams" not in a.skip_set:
        held = {}
        for p in processes:
            if not p.streams:
                continue
            entry = next(e for e in entries if e.process == p.key)
            with make(p) as server:
                if await mcp.wait_ready(phases.HOST, p.port, a.start_timeout) is None:
                    held[entry.name] = {"error": "not ready"}
                    continue
                await asyncio.sleep(1.0)
                count = a.streams if p.python == "ours" else a.peer_streams
                held[entry.name] = await phases.held_streams(entry, p.port, server.pid, count, a.hold)
                log(
                    f"streams {p.key}: {held[entry.name]['opened']}/{count} open, "
                    f"{held[entry.name]['kib_per_stream']} KiB each, "
                    f"threads {held[entry.name]['threads_held']}, call p99 "
                    f"{held[entry.name]['call_p99_ms']} ms (idle {held[entry.name]['idle_call_p99_ms']} ms)"
                )
            await asyncio.sleep(0.5)
        out["streams"] = held
    if "instructions" not in a.skip_set and instructions.available():
        low, high = (int(x) for x in a.instr_calls.split(","))
        by_name = {e.name: e for e in entries}
        wanted = [matrix.CEILING, matrix.OURS, matrix.OURS_MODERN, matrix.OURS_PRE, matrix.OURS_NOPROV]
        if a.quick:
            wanted = wanted[:2]  # the ceiling and ours: under a minute each on a quiet machine
        else:
            wanted += [matrix.OURS_OTEL, matrix.OURS_CACHED]
        pairs = [(matrix.process(by_name[n].process), by_name[n]) for n in wanted if n in by_name]
        out["instructions"] = await instructions.measure(pairs, python, low, high, 300.0, log)
        if matrix.OURS_OTEL in wanted:  # beside the traced row: the SDK's own cost, nothing of ours
            out["instructions"]["sdk_floor"] = await asyncio.to_thread(instructions.sdk_floor, python["ours"], log)
        if not a.quick:  # the cold-start row's instructions (~1 min): they decide its verdict, as the feature rows'
            out["instructions"]["cold_start"] = await startup_count.cold_start(python["ours"], log)
    for name in extras.SECTIONS:
        if name not in a.skip_set:
            out[name] = await asyncio.to_thread(extras.run, name, python["ours"], python["peers"], a.quick, log)
    if "kernel" not in a.skip_set:
        out["kernel"] = await asyncio.to_thread(
            kernel.measure, python["ours"], a.kernel_seconds, log, a.server_cpu or None
        )
    return out


def main(argv: list[str] | None = None) -> int:
    a = options(argv)
    if a.render:
        raw = a.render.resolve()
        a.md.write_text(report.render(json.loads(raw.read_text()), _shown(raw, env.BENCH)))
        log(f"wrote {a.md} from {_shown(raw, env.REPO)}")
        return 0
    env.ensure_wrk(log)
    python = {"ours": env.our_python(), "peers": env.peers_python(log)}
    env.compile_bytecode(python["ours"])
    if a.client_cpu:
        os.sched_setaffinity(0, {int(c) for c in a.client_cpu.split(",")})
    processes, entries = select(a.only)
    if any(p.key == "ours-pre" for p in processes):
        env.pre_tree(python["ours"], log)
    with contextlib.ExitStack() as stack:
        if a.state_dir is None and "NANOHUBMCP_STATE_DIR" not in os.environ:
            # every run starts from empty records: a per-user directory kept across runs grew to ~40 MB of
            # records and read 0.49 pread64 a call against 0.09 (bench/provenance.md, twentieth pass)
            a.state_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mcpbench-state-")))
        if a.state_dir is not None:
            os.environ["NANOHUBMCP_STATE_DIR"] = str(a.state_dir)
        return _run(a, argv, python, processes, entries)


def _run(a: argparse.Namespace, argv: list[str] | None, python: dict[str, str],
         processes: tuple[Process, ...], entries: tuple[Entry, ...]) -> int:
    started = datetime.datetime.now(datetime.timezone.utc)
    data: dict[str, object] = {
        "date": started.isoformat(timespec="seconds"),
        "machine": env.describe(python["ours"], python["peers"]),
        "command": " ".join(["python3 bench/run.py", *(shlex.quote(x) for x in (argv or sys.argv[1:]))]),
        "settings": {
            k: getattr(a, k)
            for k in (
                "quick",
                "rounds",
                "duration",
                "warmup",
                "conc_list",
                "coldstart_runs",
                "streams",
                "peer_streams",
                "hold",
                "big_n",
                "big_calls",
                "kernel_seconds",
                "instr_calls",
                "server_cpu",
                "client_cpu",
            )
        },
    }
    data["state_dir"] = os.environ.get("NANOHUBMCP_STATE_DIR")
    data.update(asyncio.run(measure(a, processes, entries, python)))
    data["elapsed_s"] = round(time.perf_counter() - T0, 1)
    data["loadavg_end"] = Path("/proc/loadavg").read_text().split()[:3]
    results = env.BENCH / "results"
    results.mkdir(exist_ok=True)
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    raw = results / f"{'quick' if a.quick else 'run'}-{stamp}.json"
    raw.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    a.md.parent.mkdir(parents=True, exist_ok=True)
    a.md.write_text(report.render(data, _shown(raw, env.BENCH)))
    log(f"wrote {_shown(raw, env.REPO)} and {_shown(a.md.resolve(), env.REPO)}")
    return 0


def _shown(path: Path, base: Path) -> Path:
    """``path`` relative to ``base`` when inside it (``--md``/``--render`` may point anywhere)."""
    return path.relative_to(base) if path.is_relative_to(base) else path


if __name__ == "__main__":
    sys.exit(main())
