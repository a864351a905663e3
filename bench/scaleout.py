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
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
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


def loop_cpu(pid: int) -> float:
    """CPU seconds of the main threads (the event loops) of the process tree of ``pid``; the rest
    of its CPU is its other threads' (provenance writer, worker pool, background reads)."""
    total = 0.0
    for p in procs.tree(pid):
        try:
            fields = Path(f"/proc/{p}/task/{p}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / procs.TICKS
    return total


def loop_switches(pid: int) -> int:
    """Voluntary context switches so far of the main threads (the event loops) of the process tree
    of ``pid``: the loop sleeping in ``epoll`` when it has nothing to do, and waiting for the
    interpreter lock while another thread of its process (the provenance writer, a pool worker)
    holds it — which a process with one thread never does."""
    total = 0
    for p in procs.tree(pid):
        try:
            status = Path(f"/proc/{p}/task/{p}/status").read_text()
        except OSError:
            continue
        total += int(status.split("voluntary_ctxt_switches:")[1].split()[0])
    return total


def thread_switches(pid: int) -> dict[str, int]:
    """Context switches so far of the process tree of ``pid``, by kind of thread: ``loop_vol`` /
    ``loop_invol`` (the main threads, the event loops: voluntary, involuntary) and ``other_vol`` /
    ``other_invol`` (every other thread: the provenance writer, pool workers, background reads)."""
    counts = dict.fromkeys(("loop_vol", "loop_invol", "other_vol", "other_invol"), 0)
    for p in procs.tree(pid):
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                status = Path(f"/proc/{p}/task/{task}/status").read_text()
            except OSError:
                continue
            kind = "loop" if int(task) == p else "other"
            counts[f"{kind}_vol"] += int(status.split("\nvoluntary_ctxt_switches:")[1].split()[0])
            counts[f"{kind}_invol"] += int(status.split("nonvoluntary_ctxt_switches:")[1].split()[0])
    return counts


def core_times(cpus: set[int]) -> tuple[int, int, int]:
    """``(idle, steal, total)`` clock ticks so far of the CPUs ``cpus`` (``/proc/stat``): idle
    includes iowait; steal is time the hypervisor gave this virtual CPU's host core to another."""
    idle = steal = total = 0
    for line in Path("/proc/stat").read_text().splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in cpus:
            continue
        ticks = [int(v) for v in rest.split()]
        idle += ticks[3] + ticks[4]
        steal += ticks[7] if len(ticks) > 7 else 0
        total += sum(ticks[:8])
    return idle, steal, total


def cpu_set(text: str) -> set[int]:
    """The CPUs of a ``taskset`` list (``0-1``, ``0,2``)."""
    found: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found


def pin_workers(pid: int, cpus: list[int]) -> None:
    """Pin each forked worker under ``pid`` (all its threads) to a CPU of its own, in turn from ``cpus``."""
    workers = [p for p in procs.tree(pid) if p != pid]
    for cpu, worker in zip(cpus * len(workers), sorted(workers), strict=False):
        for task in os.listdir(f"/proc/{worker}/task"):
            os.sched_setaffinity(int(task), {cpu})


class Placement(threading.Thread):
    """Samples, every 0.1 s until stopped, the CPU each event loop of ``pid``'s process tree last ran
    on (``/proc/<pid>/task/<pid>/stat``, field 39): where the kernel put a server free to run on
    several cores — alone, or beside wrk on the client's core, whose context switches it then shares."""

    def __init__(self, pid: int, client_cpus: set[int]) -> None:
        super().__init__(daemon=True)
        self.pid, self.client_cpus = pid, client_cpus
        self.samples = self.beside = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.1):
            for p in procs.tree(self.pid):
                try:
                    fields = Path(f"/proc/{p}/task/{p}/stat").read_text().rpartition(")")[2].split()
                except OSError:
                    continue
                self.samples += 1
                self.beside += int(fields[36]) in self.client_cpus  # field 39 of stat, counted from state

    def share(self) -> float:
        """The share of the samples that found a loop on the client's core."""
        self.done.set()
        self.join()
        return self.beside / self.samples if self.samples else -1.0


def lanes(into: Path, pid: int) -> list[tuple[int, int, int]]:
    """``(on the loop, on the pool for good, times sent back)`` of ``add`` in each serving process
    under ``pid`` (servers/scaleout_app.py writes them with ``SCALEOUT_LANE_DIR``)."""
    found = []
    tree = list(procs.tree(pid))
    for p in [p for p in tree if p != pid] or [pid]:  # the workers when it forked
        try:
            found.append(tuple(int(v) for v in (into / str(p)).read_text().split()))
        except (OSError, ValueError):
            continue
    return found  # type: ignore[return-value]


def bytes_in_by_process(port: int) -> dict[int, int]:
    """Bytes received so far on the established connections to ``port``, by the serving process
    (``ss -tinp``): each worker's share of the requests, as every request has the same size."""
    out = subprocess.run(
        ["ss", "-tinpH", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True, timeout=30
    ).stdout
    shares: dict[int, int] = {}
    # ss prints each socket on one line with its process, then its counters on the next.
    for head, info in zip(out.splitlines()[::2], out.splitlines()[1::2], strict=False):
        pid = re.search(r"pid=(\d+)", head)
        got = re.search(r"bytes_received:(\d+)", info)
        if pid and got:
            shares[int(pid.group(1))] = shares.get(int(pid.group(1)), 0) + int(got.group(1))
    return shares


def command_calls(port: int) -> dict[str, int]:
    """Redis's ``INFO commandstats``: calls so far of each command."""
    calls = {}
    for line in redis_cli(port, "info", "commandstats").splitlines():
        if line.startswith("cmdstat_"):
            name, _, rest = line.partition(":")
            calls[name[len("cmdstat_") :]] = int(rest.split("calls=")[1].split(",")[0])
    return calls


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


async def count_instructions(
    python: str, url: str, calls: list[int], tree: str | None, provenance: bool = False
) -> dict[str, Any]:
    """Instructions per ``add`` call of servers/ours.py with memory and Redis state (and the
    ``tree`` checkout's, when given), each under valgrind one call at a time (mcpbench.instructions);
    ``provenance``: with the provenance records on, as the wrk cells run (their one-off read of the
    distributions table is made before serving, mcpbench.instructions)."""
    pairs = []
    # The lease covers the whole run (one call takes ~1 s under valgrind): a session in use.
    off = () if provenance else ("--no-provenance",)
    for label, flags in (("memory", off), ("redis", (*off, "--state-url", url))):
        for when, extra in (("", ("--lease", "600")), (", before", ("--tree", tree) if tree else None)):
            if extra is None or (label == "memory" and when):
                continue
            key = f"{label}{when}"
            process = matrix.Process(key, "ours", "ours.py", free_port(), (*flags, *extra), streams=False)
            pairs.append((process, matrix.Entry(key, key, "ours")))
    return await instructions.measure(pairs, {"ours": python}, calls[0], calls[1], 300.0, print)


SCALING = {
    "ceiling": ("ceiling, 2 workers, reuse_port", "ceiling, 1 process"),
    "redis": ("redis, 2 workers", "redis, 1 process"),
    "redis, no provenance": ("redis, 2 workers, no provenance", "redis, 1 process, no provenance"),
    "redis, before": ("redis, 2 workers, before", "redis, 1 process, before"),
    "ceiling, one core": ("ceiling, 2 workers, reuse_port", "ceiling, 1 process, one core"),
    "redis, one core": ("redis, 2 workers", "redis, 1 process, one core"),
    "redis, no provenance, one core": ("redis, 2 workers, no provenance", "redis, 1 process, no provenance, one core"),
}
"""The req/s ratios reported: (2 processes, 1 process) variants, taken per round. "one core": the
1 process pinned to one core (``--one-core``), so that 1 and 2 processes do the same work per call
on 1 and 2 cores; otherwise the 1 process has the same 2 cores as the 2 (where a process with a
second busy thread, the provenance writer, is not bound by one core, and pays for sharing its
interpreter lock across cores; bench/scaleout.md)."""

STATE_CPU = {
    "redis ÷ memory": ("redis, 1 process", "memory, 1 process"),
    "redis ÷ memory, one core": ("redis, 1 process, one core", "memory, 1 process, one core"),
    "redis ÷ memory, before": ("redis, 1 process, before", "memory, 1 process, before"),
}
"""CPU per call (server + redis-server) of Redis state ÷ memory state, 1 process, taken per round."""


def per_round(
    cells: dict[str, list[dict[str, float]]],
    pairs: dict[str, tuple[str, str]],
    value: Callable[[dict[str, float]], float],
) -> dict[str, dict[str, Any]]:
    """``value(a) ÷ value(b)`` for each pair ``(a, b)`` of variants, per round (every variant of a
    round runs back to back, in rotated order), and the median of the rounds, for the pairs that ran."""
    out: dict[str, dict[str, Any]] = {}
    for label, (two, one) in pairs.items():
        both = list(zip(cells.get(two) or [], cells.get(one) or [], strict=False))
        rounds = [value(t) / value(o) for t, o in both if value(o)]
        if rounds:
            out[label] = {"rounds": rounds, "median": statistics.median(rounds)}
    return out


def per_round_scaling(cells: dict[str, list[dict[str, float]]]) -> dict[str, dict[str, Any]]:
    """2 processes ÷ 1 process req/s, per round, for each pair of :data:`SCALING` that ran."""
    return per_round(cells, SCALING, lambda c: c["rps"])


def per_round_state_cpu(cells: dict[str, list[dict[str, float]]]) -> dict[str, dict[str, Any]]:
    """Redis ÷ memory state CPU per call (the server's + redis-server's), per round (:data:`STATE_CPU`)."""
    return per_round(cells, STATE_CPU, lambda c: c["cpu_ms"] + c["redis_cpu_ms"])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--conc", type=int, default=16)
    p.add_argument("--sessions", type=int, default=2000)
    p.add_argument("--server-cpu", default="0-1")
    p.add_argument("--client-cpu", default="1")
    p.add_argument("--json", type=Path, help="also write the figures here (run.py's raw data)")
    p.add_argument(
        "--before",
        metavar="PYTHON[:TREE]",
        help="another checkout's python (and its source tree, put first on PYTHONPATH): its variants too",
    )
    p.add_argument(
        "--instructions", type=int, nargs=2, metavar=("LOW", "HIGH"), help="also count instructions per call (valgrind)"
    )
    p.add_argument("--tree", help="with --instructions and --before: the before checkout's source tree")
    p.add_argument(
        "--provenance", action="store_true", help="with --instructions: count with the provenance records on"
    )
    p.add_argument(
        "--only", default="", help="comma- (or, when one is given, |-) separated substrings: the variants naming one"
    )
    p.add_argument(
        "--one-core", metavar="CPU", help="also each 1-process variant pinned to this one CPU (not the client's)"
    )
    p.add_argument("--diagnose", action="store_true", help="also the Redis variants without provenance records")
    a = p.parse_args()
    env.ensure_wrk()
    if not shutil.which("redis-server"):
        raise SystemExit("redis-server is required (apt-get install redis-server)")
    python = env.our_python()
    client_cpus = {int(c) for c in a.client_cpu.split(",")}
    os.sched_setaffinity(0, client_cpus)
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
    if a.diagnose:  # the same without the provenance records (their writer thread, their SQLite file)
        quiet = ["env", "SCALEOUT_PROVENANCE=0"]
        variants["redis, 1 process, no provenance"] = [*quiet, *ours, "--state-url", url]
        variants["redis, 2 workers, no provenance"] = [*quiet, *ours, "--state-url", url, "--workers", "2"]
        apart = ["env", "SCALEOUT_FILE_PER_WORKER=1"]
        variants["redis, 2 workers, a file each"] = [*apart, *ours, "--state-url", url, "--workers", "2"]
        variants["redis, 2 workers, pinned"] = [*ours, "--state-url", url, "--workers", "2"]
        variants["ceiling, 2 workers, reuse_port, pinned"] = [*ceiling, "--workers", "2", "--reuse-port"]
        kept = ["env", "SCALEOUT_FILE_PER_WORKER=memory"]
        variants["redis, 2 workers, records in memory"] = [*kept, *ours, "--state-url", url, "--workers", "2"]
    cpus = dict.fromkeys(variants, a.server_cpu)
    if a.one_core:  # the 1-process variants again, pinned to one core: what one process makes of one core
        for name in [n for n in variants if "1 process" in n]:
            variants[f"{name}, one core"] = variants[name]
            cpus[f"{name}, one core"] = a.one_core
    if a.before:
        python_before, _, tree_before = a.before.partition(":")
        path = ["env", f"PYTHONPATH={tree_before}"] if tree_before else []
        before = [*path, python_before, "-m", "nanohubmcp", "run", str(APP)]
        variants["memory, 1 process, before"] = [*before]
        variants["redis, 1 process, before"] = [*before, "--state-url", url]
        variants["redis, 2 workers, before"] = [*before, "--state-url", url, "--workers", "2"]
    if a.only:
        wanted = [w.strip() for w in a.only.split("|" if "|" in a.only else ",") if w.strip()]
        variants = {k: v for k, v in variants.items() if any(w in k for w in wanted)}
    servers, ports, sessions = {}, {}, {}
    counted: dict[str, Any] | None = None
    cells: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    commands: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    try:
        time.sleep(0.5)
        for name, extra in variants.items():
            ports[name] = free_port()
            # A state directory of its own (provenance records, job store): by default every
            # variant, and every earlier run, wrote one SQLite file under the user's data directory.
            own = ["env", f"NANOHUBMCP_STATE_DIR={work / f'state-{ports[name]}'}", f"SCALEOUT_LANE_DIR={work}"]
            servers[name] = procs.ServerProcess(
                [*own, *extra, "--port", str(ports[name])],
                work,
                cpus.get(name, a.server_cpu),
                log=work / f"{ports[name]}.log",
            )
            servers[name].start()
        for name in variants:
            if asyncio.run(mcp.wait_ready("127.0.0.1", ports[name], 60)) is None:
                raise SystemExit(f"{name} not ready: {(work / f'{ports[name]}.log').read_text()[-2000:]}")
            sessions[name] = asyncio.run(open_session(ports[name]))
        body = mcp.call_body("add", mcp.ADD_ARGS, templated=True)
        for name in [n for n in variants if n.endswith(", pinned")]:  # each worker (every thread) on a CPU of its own
            pin_workers(servers[name].pid, sorted(cpu_set(a.server_cpu)))
        for name in variants:  # warm-up
            wrk.run(ports[name], a.conc, 2, body, mcp.headers(session=sessions[name]), mcp.ADD_EXPECT)
        for r in range(a.rounds):
            for name in rotate(list(variants), r):
                redis0 = redis_cpu(redis.pid)
                workers0 = worker_cpu(servers[name].pid)
                loop0 = loop_cpu(servers[name].pid)
                lanes0 = lanes(work, servers[name].pid)
                switches0 = loop_switches(servers[name].pid)
                threads0 = thread_switches(servers[name].pid)
                cores0 = core_times(cpu_set(a.server_cpu))
                commands0 = command_calls(rport)
                wrk0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                received: dict[int, int] = {}
                # Each connection's bytes received, read just before wrk ends (its connections
                # are opened at its start and closed at its end).
                reader = threading.Timer(
                    max(0.5, a.seconds - 0.4), lambda p=ports[name], into=received: into.update(bytes_in_by_process(p))
                )
                reader.start()
                placement = Placement(servers[name].pid, client_cpus)
                placement.start()
                cell = wrk.run(
                    ports[name],
                    a.conc,
                    a.seconds,
                    body,
                    mcp.headers(session=sessions[name]),
                    mcp.ADD_EXPECT,
                    server_pid=servers[name].pid,
                )
                reader.join()
                beside_wrk = placement.share()
                redis_ms = (redis_cpu(redis.pid) - redis0) * 1000
                loop_ms = (loop_cpu(servers[name].pid) - loop0) * 1000
                lanes1 = lanes(work, servers[name].pid)
                switches = loop_switches(servers[name].pid) - switches0
                threads1 = thread_switches(servers[name].pid)
                cores1 = core_times(cpu_set(a.server_cpu))
                ticks = max(1, cores1[2] - cores0[2])
                commands1 = command_calls(rport)
                wrk1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                wrk_ms = (wrk1.ru_utime + wrk1.ru_stime - wrk0.ru_utime - wrk0.ru_stime) * 1000
                spent = {pid: cpu - workers0.get(pid, 0.0) for pid, cpu in worker_cpu(servers[name].pid).items()}
                busiest = max(spent.values()) / max(1e-9, sum(spent.values())) if len(spent) > 1 else 1.0
                shares = sorted((v / max(1, sum(received.values())) for v in received.values()), reverse=True)
                n = cell["requests"] or 1
                sent = {k: (v - commands0.get(k, 0)) / n for k, v in commands1.items() if v - commands0.get(k, 0)}
                sent.pop("info", None)  # this script's own
                cells[name].append(
                    {
                        "rps": cell["rps"],
                        "cpu_ms": (cell.get("cpu_us_per_req") or 0.0) / 1000,
                        "loop_cpu_ms": loop_ms / n,
                        "redis_cpu_ms": redis_ms / n,
                        "redis_commands": sum(sent.values()),
                        "errors": sum(cell["errors"].values()) + cell["wrong"],
                        "busiest_worker_share": busiest,
                        "busiest_worker_requests": shares[0] if len(shares) > 1 else 1.0,
                        "wrk_cpu_ms": wrk_ms / n,
                        # add on the event loop at the cell's start and end (share of the processes;
                        # -1: not our server), and how often an inline call sent it back meanwhile
                        "inline_start": statistics.mean(x[0] for x in lanes0) if lanes0 else -1.0,
                        "inline_end": statistics.mean(x[0] for x in lanes1) if lanes1 else -1.0,
                        "loop_switches": switches / n,
                        # every thread's switches per call, by kind (thread_switches)
                        **{f"{k}_per_call": (threads1[k] - threads0[k]) / n for k in threads1},
                        # the server CPUs' idle and stolen shares over the cell (/proc/stat)
                        "cores_idle": (cores1[0] - cores0[0]) / ticks,
                        "cores_steal": (cores1[1] - cores0[1]) / ticks,
                        "loop_beside_wrk": beside_wrk,
                        "sent_back": float(sum(x[2] for x in lanes1) - sum(x[2] for x in lanes0)),
                    }
                )
                commands[name].append(sent)
                last = cells[name][-1]
                print(
                    f"round {r + 1} {name:34s} {cell['rps']:8.0f} req/s {last['cpu_ms'] * 1000:6.0f} µs/call"
                    f" loop {last['loop_cpu_ms'] * 1000:5.0f} switches {last['loop_switches']:.2f}"
                    f" inline {last['inline_start']:.1f}->{last['inline_end']:.1f} sent back {last['sent_back']:.0f}"
                    f" beside wrk {last['loop_beside_wrk']:.2f} idle {last['cores_idle']:.3f}"
                    f" steal {last['cores_steal']:.3f} other vol {last['other_vol_per_call']:.3f}"
                    f" loop invol {last['loop_invol_per_call']:.3f}",
                    flush=True,
                )
        for server in servers.values():
            server.stop()
        # Memory per session held in Redis: open sessions against a fresh Redis-backed process.
        if a.instructions:
            counted = asyncio.run(count_instructions(python, url, a.instructions, a.tree, a.provenance))
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
    summary = {name: {k: statistics.median(c[k] for c in cs) for k in cs[0]} for name, cs in cells.items() if cs}
    scaling = per_round_scaling(cells)
    state_cpu = per_round_state_cpu(cells)
    print(
        f"\n{'variant':34s} {'req/s':>7s} {'server CPU ms/call':>18s} {'loop':>6s} {'redis':>6s} {'cmds':>5s}"
        f" {'wrk':>6s} {'busiest cpu/req':>15s} {'switches':>8s} {'inline':>6s} {'by wrk':>6s}"
        f" {'idle':>5s} {'steal':>5s} {'other vol':>9s} {'loop invol':>10s}"
    )
    for name, s in summary.items():
        print(
            f"{name:34s} {s['rps']:7.0f} {s['cpu_ms']:18.3f} {s['loop_cpu_ms']:6.3f} {s['redis_cpu_ms']:6.3f}"
            f" {s['redis_commands']:5.2f} {s['wrk_cpu_ms']:6.3f}"
            f" {s['busiest_worker_share']:7.2f}/{s['busiest_worker_requests']:.2f}"
            f" {s['loop_switches']:8.2f} {s['inline_end']:6.1f} {s['loop_beside_wrk']:6.2f}"
            f" {s['cores_idle']:5.3f} {s['cores_steal']:5.3f} {s['other_vol_per_call']:9.3f}"
            f" {s['loop_invol_per_call']:10.3f}"
        )
    for label, ratios in state_cpu.items():
        shown = ", ".join(f"{r:.2f}" for r in ratios["rounds"])
        print(f"CPU per call, {label}: median {ratios['median']:.2f} (rounds {shown})")
    for label, ratios in scaling.items():
        shown = ", ".join(f"{r:.2f}" for r in ratios["rounds"])
        print(f"2 processes ÷ 1, {label}: median {ratios['median']:.2f} (rounds {shown})")
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
        "scaling": scaling,
        "state_cpu": state_cpu,
        "redis_commands_per_call": {name: cs[-1] if cs else {} for name, cs in commands.items()},
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
