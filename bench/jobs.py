"""Job store and job executor figures (not a test: no pass/fail, just numbers).

    .venv/bin/python bench/jobs.py            # everything, a few minutes on 2 cores
    .venv/bin/python bench/jobs.py --jobs 50  # fewer jobs per executor (a smoke run)
    .venv/bin/python bench/jobs.py --json /tmp/jobs.json   # also the raw figures, for bench/run.py

Prints a markdown table:

- submit → result latency (p50/p99) of short ``@async_tool`` jobs per executor (threads,
  processes, Dask ``LocalCluster``), end to end over HTTP: ``POST /tools/quick`` (202 + job id),
  then ``POST /tools/get_job_result`` until done, one job at a time on one keep-alive connection;
- the store's cost per progress update (SQLite, and memory for comparison), one thread;
- the store file's size per 1,000 finished jobs (small results);
- restart to first answer with 10,000 stored jobs (open the store, recover, read one job);
- Dask: a job through the Dask executor alone, and through a server over MCP tasks (an MCP
  client in this process, the server in another: ``tools/call`` with ``params.task``, then
  ``tasks/result``, which answers when the job ends, so no polling interval is measured), each
  against ``client.submit(f).result()`` in the same process as the executor and the server:
  p50/p90 seconds, and that process's CPU and voluntary context switches per job, which a
  loaded machine disturbs less than the latency. Jobs run back to back, then 30 ms apart (the
  Dask client batches what it sends within 10 ms, so back to back a job's submission may wait
  for the previous job's last messages). Each checkout's code runs in a process of its own, in
  interleaved rounds; ``--before CHECKOUT`` adds a process running another checkout's code (a
  worktree of main) to the same rounds. On a loaded machine run it at real-time priority (the
  processes mostly wait, so they take little): ``chrt -f 10 .venv/bin/python bench/jobs.py ...``

    .venv/bin/python bench/jobs.py --dask-only --dask-rounds 8 --before /tmp/main-checkout
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHECKOUT_ENV = "NANOHUBMCP_BENCH_CHECKOUT"
"""The checkout whose code a ``--dask-child`` process runs (``--before``): this one by default."""
sys.path.insert(0, os.environ.get(CHECKOUT_ENV, str(ROOT)))

from nanohubmcp import MCPServer  # noqa: E402
from nanohubmcp.server.jobs import service as jobmod  # noqa: E402


def quick(n: int) -> int:
    """A job that does (almost) nothing: the cost measured is the machinery's."""
    return n + 1


def ms(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (seconds), in milliseconds rounded to 0.01."""
    return round(percentile(values, q) * 1e3, 2)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def latency(executor: str, jobs: int, state: Path, dask_address: str | None = None) -> list[float]:
    """Seconds from submit to a ``done`` poll, per job."""
    server = MCPServer(
        "bench-jobs", state_dir=str(state / executor), job_executor=executor, dask_address=dask_address, job_workers=2
    )
    server.async_tool()(quick)
    server.start(host="127.0.0.1", port=0)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        for warm in range(3):  # pools and clusters start on first use: not part of the figure
            _, body = post(conn, "/tools/quick", {"n": warm})
            while post(conn, "/tools/get_job_result", {"job_id": body["job_id"]})[1]["status"] == "running":
                pass
        times = []
        for i in range(jobs):
            t0 = time.perf_counter()
            status, body = post(conn, "/tools/quick", {"n": i})
            assert status == 202, body
            while True:
                _, answer = post(conn, "/tools/get_job_result", {"job_id": body["job_id"]})
                if answer["status"] != "running":
                    break
            assert answer["status"] == "done", answer
            times.append(time.perf_counter() - t0)
        conn.close()
        return times
    finally:
        server.stop()


def progress_cost(kind: str, updates: int, state: Path) -> float:
    """Microseconds per ``JobStore.progress`` call."""
    store = jobmod.JobStore(name="bench", state_dir=state / f"progress-{kind}", kind=kind)
    job = store.create("work", None)
    t0 = time.perf_counter()
    for step in range(updates):
        store.progress(job.id, step, updates, "working")
    return (time.perf_counter() - t0) / updates * 1e6


def fill(directory: Path, count: int) -> jobmod.JobStore:
    store = jobmod.JobStore(name="bench", state_dir=directory, max_jobs=count + 10, max_jobs_per_owner=count + 10)
    for i in range(count):
        job = store.create("work", f"session-{i % 50}", arguments={"n": i})
        job.finish(
            jobmod.COMPLETED, result={"content": [{"type": "text", "text": str(i)}], "structuredContent": {"result": i}}
        )
    return store


def file_size(directory: Path) -> int:
    import sqlite3

    db = sqlite3.connect(directory / "jobs.sqlite3")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return sum(p.stat().st_size for p in directory.glob("jobs.sqlite3*"))


def restart_to_first_answer(directory: Path, job_id: str) -> float:
    t0 = time.perf_counter()
    store = jobmod.JobStore(name="bench", state_dir=directory)
    job = store.get(job_id, None)  # opens the file, recovers, reads (an earlier process's job: by its id)
    assert job.status == jobmod.COMPLETED
    return time.perf_counter() - t0


def session(conn: http.client.HTTPConnection) -> dict[str, str]:
    """Open an MCP session (2025-11-25) on ``conn``; the headers of its requests."""
    _, headers = mcp(
        conn,
        {},
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench-jobs", "version": "0"}},
    )
    headers = {"Mcp-Session-Id": headers["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-11-25"}
    mcp(conn, headers, "notifications/initialized", None)
    return headers


def mcp(
    conn: http.client.HTTPConnection, headers: dict[str, str], method: str, params: dict[str, Any] | None
) -> tuple[Any, dict[str, str]]:
    """One JSON-RPC message over ``POST /mcp`` (a JSON answer); ``(answer, response headers)``."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message.update(id=1, params=params)
    conn.request(
        "POST",
        "/mcp",
        body=json.dumps(message),
        headers={"Content-Type": "application/json", "Accept": "application/json", **headers},
    )
    response = conn.getresponse()
    body = response.read()
    return (json.loads(body) if body else None), dict(response.getheaders())


class DaskPaths:
    """The process of one checkout: ``client.submit(f).result()``, a job through the Dask executor
    alone, and a server with the same executor, each with a client of its own to one scheduler
    (which runs in another process)."""

    def __init__(self, address: str, state: Path) -> None:
        from distributed import Client

        from nanohubmcp.server.executors.dask_cluster import DaskJobExecutor

        self.client = Client(address, set_as_default=False)
        self.executor = DaskJobExecutor(address)
        self.store = jobmod.JobStore(name="bench", kind="memory")
        self.server = MCPServer("bench-dask", state_dir=str(state), job_executor="dask", dask_address=address)
        self.server.async_tool()(quick)
        self.server.start(host="127.0.0.1", port=0)
        for path in ("plain", "executor"):  # clients connect on first use: not part of the figure
            self.run(path, 3)
        McpCaller(self.server.port).run(3)

    def run(self, path: str, jobs: int, gap: float = 0.0) -> list[float]:
        """Seconds per job, one job at a time, ``gap`` seconds apart (not counted)."""
        if path == "executor":
            return asyncio.run(self._through_executor(jobs, gap))
        times = []
        for i in range(jobs):
            time.sleep(gap)
            t0 = time.perf_counter()
            value = self.client.submit(quick, i, pure=False).result()
            times.append(time.perf_counter() - t0)
            assert value == i + 1
        return times

    async def _through_executor(self, jobs: int, gap: float) -> list[float]:
        times = []
        for i in range(jobs):
            job = self.store.create("quick", None)
            await asyncio.sleep(gap)
            t0 = time.perf_counter()
            value = await self.executor.call(job, quick, {"n": i}, context=None, context_param=None, is_coroutine=False)
            times.append(time.perf_counter() - t0)
            assert value == i + 1
        return times

    def close(self) -> None:
        self.server.stop()
        self.executor.close()
        self.client.close()


class McpCaller:
    """An MCP client of a server (in another process) that runs ``quick`` as a task:
    ``tools/call`` with ``params.task``, then ``tasks/result``, which answers when the job ends
    (no polling interval in the figure); one session on one keep-alive connection."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = session(self.conn)

    def run(self, jobs: int, gap: float = 0.0) -> list[float]:
        """Seconds per job, one job at a time, ``gap`` seconds apart (not counted)."""
        times = []
        for i in range(jobs):
            time.sleep(gap)
            t0 = time.perf_counter()
            answer, _ = mcp(
                self.conn, self.headers, "tools/call", {"name": "quick", "arguments": {"n": i}, "task": {"ttl": 60000}}
            )
            task_id = answer["result"]["task"]["taskId"]
            answer, _ = mcp(self.conn, self.headers, "tasks/result", {"taskId": task_id})
            times.append(time.perf_counter() - t0)
            assert answer["result"]["content"][0]["text"] == str(i + 1), answer
        return times


def usage() -> tuple[float, int]:
    """CPU seconds and voluntary context switches of this process so far (every thread): a
    thread that waits for another gives up its CPU once, so the switches count the hand-overs
    between threads and processes, which on a loaded machine each cost a wait for a CPU."""
    return time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw


def dask_child(address: str) -> None:
    """``--dask-child``: print the server's port, then answer each line on stdin: ``PATH JOBS
    GAP`` (plain, executor) with ``[seconds per job, CPU seconds, context switches]``, ``usage``
    with ``[CPU seconds, context switches]`` so far (around a client's calls to the server)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = DaskPaths(address, Path(tmp))
        print(json.dumps(paths.server.port), flush=True)
        for line in sys.stdin:
            if line.strip() == "usage":
                print(json.dumps(usage()), flush=True)
                continue
            path, jobs, gap = line.split()
            cpu, switches = usage()
            times = paths.run(path, int(jobs), float(gap))
            cpu_after, switches_after = usage()
            print(json.dumps([times, cpu_after - cpu, switches_after - switches]), flush=True)
        paths.close()


class Checkout:
    """A ``--dask-child`` process running the code of one checkout, and an MCP client of its server."""

    def __init__(self, root: Path, address: str) -> None:
        import subprocess

        env = {**os.environ, CHECKOUT_ENV: str(root), "PYTHONPATH": str(root)}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--dask-child", address],
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.caller = McpCaller(int(self.ask_line()))

    def ask(self, line: str) -> Any:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.ask_line()

    def ask_line(self) -> Any:
        assert self.proc.stdout is not None
        return json.loads(self.proc.stdout.readline())

    def run(self, path: str, jobs: int, gap: float) -> tuple[list[float], float, int]:
        """Seconds per job, and the CPU seconds and voluntary context switches of the checkout's
        process for them all (the server's process, for ``server``: its client is this one)."""
        if path != "server":
            times, cpu, switches = self.ask(f"{path} {jobs} {gap}")
            return times, cpu, switches
        cpu, switches = self.ask("usage")
        times = self.caller.run(jobs, gap)
        cpu_after, switches_after = self.ask("usage")
        return times, cpu_after - cpu, switches_after - switches

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.caller.conn.close()
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


PATHS = ("plain", "executor", "server")


def dask_rounds(
    address: str, jobs: int, rounds: int, before: Path | None, gap: float = 0.0
) -> dict[str, dict[str, dict[str, Any]]]:
    """Each checkout (this one, and ``before``) in a process of its own, rounds interleaved; in
    each process ``client.submit(f).result()``, the executor alone and a server, ``jobs`` jobs each
    per round: ``{checkout: {path: {"seconds": [...], "cpu_ms": per job, "switches": per job}}}``.
    Each path is compared with ``client.submit`` in the same process: two processes on a loaded
    machine are not scheduled alike. The MCP client of each server is this process."""
    checkouts = {"after": Checkout(ROOT, address)}
    if before is not None:
        checkouts["before"] = Checkout(before, address)
    totals = {name: {path: {"seconds": [], "cpu": 0.0, "switches": 0} for path in PATHS} for name in checkouts}
    try:
        for r in range(rounds):
            order = list(checkouts.items())
            if r % 2:
                order.reverse()
            for path in PATHS if r % 2 else PATHS[::-1]:
                for name, checkout in order:
                    seconds, cpu, switches = checkout.run(path, jobs, gap)
                    total = totals[name][path]
                    total["seconds"] += seconds
                    total["cpu"] += cpu
                    total["switches"] += switches
    finally:
        for checkout in checkouts.values():
            checkout.close()
    return {
        name: {
            path: {
                "seconds": t["seconds"],
                "cpu_ms": round(t["cpu"] / len(t["seconds"]) * 1e3, 2),
                "switches": round(t["switches"] / len(t["seconds"]), 1),
            }
            for path, t in paths.items()
        }
        for name, paths in totals.items()
    }


GAP_SECONDS = 0.03
"""The pause before each job of the spaced rounds: longer than the Dask client's batching interval
(10 ms), so each submission leaves at once, as a lone call's does."""


def dask_figures(
    paths: dict[str, dict[str, Any]], gap: float, rounds: int, label: str
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The raw figures and table rows of one checkout's Dask paths."""
    plain = paths["plain"]
    figures: dict[str, Any] = {
        "client_submit_p50": ms(plain["seconds"], 0.5),
        "client_submit_p90": ms(plain["seconds"], 0.9),
        "client_submit_cpu": plain["cpu_ms"],
        "client_submit_switches": plain["switches"],
        "jobs": len(plain["seconds"]),
        "rounds": rounds,
        "gap_ms": gap * 1e3,
    }
    rows = []
    how = f"{gap * 1e3:.0f} ms apart" if gap else "back to back"
    for path, what in (("executor", "through the executor"), ("server", "through a server (MCP task)")):
        ours = paths[path]
        p50, p90 = figures[f"{path}_p50"], figures[f"{path}_p90"] = ms(ours["seconds"], 0.5), ms(ours["seconds"], 0.9)
        figures[f"{path}_cpu"], figures[f"{path}_switches"] = ours["cpu_ms"], ours["switches"]
        rows.append(
            (
                f"Dask, {how}: a job {what} vs client.submit(f).result(){f' [{label}]' if label else ''}",
                f"p50 {p50:.1f} vs {figures['client_submit_p50']:.1f} ms ({p50 / figures['client_submit_p50']:.2f}x); "
                f"p90 {p90:.1f} vs {figures['client_submit_p90']:.1f} ms; CPU {ours['cpu_ms']:.1f} vs "
                f"{plain['cpu_ms']:.1f} ms and {ours['switches']:.0f} vs {plain['switches']:.0f} switches per job",
            )
        )
    return figures, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=200, help="jobs per executor (default 200)")
    parser.add_argument("--stored", type=int, default=10_000, help="stored jobs for the restart figure")
    parser.add_argument("--json", type=Path, help="also write the figures here (JSON)")
    parser.add_argument("--dask-rounds", type=int, default=4, help="interleaved rounds of the Dask paths (default 4)")
    parser.add_argument("--before", type=Path, help="also measure the Dask paths with this checkout's code")
    parser.add_argument("--dask-only", action="store_true", help="only the Dask paths")
    parser.add_argument("--dask-child", metavar="ADDRESS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dask_child:
        dask_child(args.dask_child)
        return
    rows: list[tuple[str, str]] = []
    raw: dict[str, Any] = {"jobs": args.jobs, "stored": args.stored, "latency_ms": {}}
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        from distributed import LocalCluster

        with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
            for executor in () if args.dask_only else ("threads", "processes", "dask"):
                times = latency(executor, args.jobs, state, cluster.scheduler_address)
                raw["latency_ms"][executor] = {
                    "p50": round(percentile(times, 0.5) * 1e3, 2),
                    "p99": round(percentile(times, 0.99) * 1e3, 2),
                }
                rows.append(
                    (
                        f"submit → result, {executor} ({args.jobs} jobs)",
                        f"p50 {percentile(times, 0.5) * 1e3:.1f} ms, p99 {percentile(times, 0.99) * 1e3:.1f} ms",
                    )
                )
            jobs = max(10, args.jobs // (2 * args.dask_rounds))
            for gap, suffix in ((0.0, ""), (GAP_SECONDS, "_spaced")):
                dask = dask_rounds(cluster.scheduler_address, jobs, args.dask_rounds, args.before, gap)
                for name, paths in dask.items():
                    key = ("dask" if name == "after" else "dask_before") + suffix + "_ms"
                    raw[key], more = dask_figures(paths, gap, args.dask_rounds, "" if args.before is None else name)
                    rows += more
        if args.dask_only:
            return report(rows, raw, args.json)
        raw["progress_us"] = {}
        for kind in ("sqlite", "memory"):
            micro = progress_cost(kind, 5000, state)
            raw["progress_us"][kind] = round(micro, 2)
            rows.append((f"store cost per progress update ({kind})", f"{micro:.1f} µs ({1e6 / micro:,.0f} updates/s)"))
        fill(state / "thousand", 1000)
        raw["kib_per_1000"] = round(file_size(state / "thousand") / 1024)
        rows.append(("store file per 1,000 finished jobs", f"{raw['kib_per_1000']} KiB"))
        big = fill(state / "stored", args.stored)
        some_id = next(iter(big._live))
        big.end_run()  # the server stops: its sessions end, so a restart reads a job by its id
        big.backend.close()
        raw["restart_ms"] = round(restart_to_first_answer(state / "stored", some_id) * 1e3, 2)
        rows.append((f"restart to first answer, {args.stored:,} stored jobs", f"{raw['restart_ms']:.1f} ms"))
    report(rows, raw, args.json)


def report(rows: list[tuple[str, str]], raw: dict[str, Any], to: Path | None) -> None:
    """Print the table (and write the raw figures to ``to``)."""
    print(f"\nJob figures ({os.cpu_count()} CPUs, Python {sys.version.split()[0]})\n")
    print("| measure | value |\n| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")
    if to:
        to.write_text(json.dumps(raw, indent=1))


if __name__ == "__main__":
    main()
