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
- Dask dispatch overhead: a job on the Dask executor vs ``client.submit(f).result()`` on the same
  cluster (p50 of each).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nanohubmcp import MCPServer  # noqa: E402
from nanohubmcp.server.jobs import service as jobmod  # noqa: E402


def quick(n: int) -> int:
    """A job that does (almost) nothing: the cost measured is the machinery's."""
    return n + 1


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def latency(executor: str, jobs: int, state: Path, dask_address: str | None = None) -> list[float]:
    """Seconds from submit to a ``done`` poll, per job."""
    server = MCPServer("bench-jobs", state_dir=str(state / executor), job_executor=executor,
                       dask_address=dask_address, job_workers=2)
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
        job.finish(jobmod.COMPLETED, result={"content": [{"type": "text", "text": str(i)}],
                                             "structuredContent": {"result": i}})
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


def dask_overhead(address: str, jobs: int) -> tuple[float, float]:
    """p50 seconds: a job through the Dask executor; ``client.submit(f).result()`` alone."""
    from distributed import Client

    from nanohubmcp.server.executors.dask_cluster import DaskJobExecutor

    executor = DaskJobExecutor(address)
    store = jobmod.JobStore(name="bench", kind="memory")

    async def through_executor() -> list[float]:
        times = []
        for i in range(jobs):
            job = store.create("quick", None)
            t0 = time.perf_counter()
            await executor.call(job, quick, {"n": i}, context=None, context_param=None, is_coroutine=False)
            times.append(time.perf_counter() - t0)
        return times

    ours = asyncio.run(through_executor())
    executor.close()
    with Client(address, set_as_default=False) as client:
        client.submit(quick, 0, pure=False).result()
        raw = []
        for i in range(jobs):
            t0 = time.perf_counter()
            client.submit(quick, i, pure=False).result()
            raw.append(time.perf_counter() - t0)
    return statistics.median(ours), statistics.median(raw)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=200, help="jobs per executor (default 200)")
    parser.add_argument("--stored", type=int, default=10_000, help="stored jobs for the restart figure")
    parser.add_argument("--json", type=Path, help="also write the figures here (JSON)")
    args = parser.parse_args()
    rows: list[tuple[str, str]] = []
    raw: dict[str, Any] = {"jobs": args.jobs, "stored": args.stored, "latency_ms": {}}
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        from distributed import LocalCluster

        with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
            for executor in ("threads", "processes", "dask"):
                times = latency(executor, args.jobs, state, cluster.scheduler_address)
                raw["latency_ms"][executor] = {
                    "p50": round(percentile(times, 0.5) * 1e3, 2),
                    "p99": round(percentile(times, 0.99) * 1e3, 2),
                }
                rows.append((f"submit → result, {executor} ({args.jobs} jobs)",
                             f"p50 {percentile(times, 0.5) * 1e3:.1f} ms, p99 {percentile(times, 0.99) * 1e3:.1f} ms"))
            ours, plain = dask_overhead(cluster.scheduler_address, max(20, args.jobs // 4))
            raw["dask_ms"] = {"executor_p50": round(ours * 1e3, 2), "client_submit_p50": round(plain * 1e3, 2)}
            rows.append(("Dask: one job through the executor vs client.submit(f).result()",
                         f"{ours * 1e3:.1f} ms vs {plain * 1e3:.1f} ms (p50; +{(ours - plain) * 1e3:.1f} ms)"))
        raw["progress_us"] = {}
        for kind in ("sqlite", "memory"):
            micro = progress_cost(kind, 5000, state)
            raw["progress_us"][kind] = round(micro, 2)
            rows.append((f"store cost per progress update ({kind})",
                         f"{micro:.1f} µs ({1e6 / micro:,.0f} updates/s)"))
        fill(state / "thousand", 1000)
        raw["kib_per_1000"] = round(file_size(state / "thousand") / 1024)
        rows.append(("store file per 1,000 finished jobs", f"{raw['kib_per_1000']} KiB"))
        big = fill(state / "stored", args.stored)
        some_id = next(iter(big._live))
        big.backend.close()
        raw["restart_ms"] = round(restart_to_first_answer(state / "stored", some_id) * 1e3, 2)
        rows.append((f"restart to first answer, {args.stored:,} stored jobs", f"{raw['restart_ms']:.1f} ms"))
    print(f"\nJob figures ({os.cpu_count()} CPUs, Python {sys.version.split()[0]})\n")
    print("| measure | value |\n| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")
    if args.json:
        args.json.write_text(json.dumps(raw, indent=1))


if __name__ == "__main__":
    main()
