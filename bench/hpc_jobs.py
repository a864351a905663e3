"""What ``job_executor="slurm"`` adds per job over sbatch and submitit alone (not a test: numbers).

    .venv/bin/python bench/hpc_jobs.py              # 50 jobs per way, on the cluster sbatch reaches
    .venv/bin/python bench/hpc_jobs.py --jobs 10    # a smoke run
    .venv/bin/python bench/hpc_jobs.py --md bench/hpc.md

Needs a Slurm cluster (``scripts/slurm-single-node`` starts one on this machine) and submitit. Each
way runs the same short job one at a time, and the job itself notes when it starts and ends (the
node's clock; here the same machine). Per job:

- **submit → start**: from the caller's submit (``sbatch``; ``executor.submit``; ``POST
  /tools/quick``) to the first line of the job's Python;
- **end → delivered**: from the job's last line to the caller holding the result (``squeue`` no
  longer lists it as running / ``job.done()`` / ``get_job_result`` answers done), each polled every
  20 ms.

The three ways, interleaved job by job (the order turning each round, since how soon Slurm
starts a job depends on what the node just finished): ``sbatch --wrap`` of a Python one-liner; submitit's
``SlurmExecutor`` (the library our executor is built on); our server with ``job_executor="slurm"``
over HTTP (REST ``/tools/quick`` and ``/tools/get_job_result`` on one keep-alive connection).
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nanohubmcp import MCPServer  # noqa: E402

POLL = 0.02


def quick(n: int) -> dict:
    """The job: note when it starts and ends (almost nothing in between)."""
    start = time.time()
    return {"n": n + 1, "start": start, "end": time.time()}


def by_sbatch(folder: Path) -> tuple[float, float]:
    out = folder / f"sbatch-{time.monotonic_ns()}.txt"
    code = f"import time; s = time.time(); open({str(out)!r}, 'w').write(f'{{s}} {{time.time()}}')"
    t0 = time.time()
    done = subprocess.run(
        ["sbatch", "--parsable", "-o", "/dev/null", "--wrap", f'{sys.executable} -c "{code}"'],
        capture_output=True,
        text=True,
        check=True,
    )
    job_id = done.stdout.strip().split(";")[0]
    while True:  # delivered: Slurm no longer lists it as pending or running, and its output is there
        state = subprocess.run(["squeue", "-h", "-j", job_id, "-o", "%T"], capture_output=True, text=True).stdout
        if state.strip() not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING") and out.exists():
            delivered = time.time()
            break
        time.sleep(POLL)
    start, end = (float(x) for x in out.read_text().split())
    return start - t0, delivered - end


def by_submitit(executor: Any, n: int) -> tuple[float, float]:
    t0 = time.time()
    job = executor.submit(quick, n)
    while not job.done():
        time.sleep(POLL)
    value = job.result()
    delivered = time.time()
    return value["start"] - t0, delivered - value["end"]


def by_server(conn: http.client.HTTPConnection, n: int) -> tuple[float, float]:
    t0 = time.time()
    status, body = post(conn, "/tools/quick", {"n": n})
    assert status == 202, body
    while True:
        answer = post(conn, "/tools/get_job_result", {"job_id": body["job_id"]})[1]
        if answer["status"] != "running":
            delivered = time.time()
            break
        time.sleep(POLL)
    assert answer["status"] == "done", answer
    value = answer["result"]
    return value["start"] - t0, delivered - value["end"]


def post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):.3f} / {p90:.3f}"


def cluster_up() -> None:
    """Start this machine's single-node cluster unless one already answers (the script is idempotent);
    exit with its reason when there is none to measure on."""
    started = subprocess.run([str(ROOT / "scripts" / "slurm-single-node"), "start"], capture_output=True, text=True)
    if started.returncode != 0:
        sys.exit(f"no Slurm cluster to measure on: scripts/slurm-single-node start said: {started.stderr.strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=50)
    parser.add_argument("--md", help="also write the table to this markdown file")
    parser.add_argument("--json", help="also write the figures here (run.py's raw data)")
    args = parser.parse_args()
    cluster_up()
    import submitit

    with tempfile.TemporaryDirectory(dir=Path.home()) as tmp:
        folder = Path(tmp)
        executor = submitit.SlurmExecutor(folder=folder / "submitit")
        executor.update_parameters(time=5, job_name="bench-submitit")
        server = MCPServer(
            "bench-hpc", state_dir=str(folder / "state"), job_executor="slurm", executor_options={"time": 5}
        )
        server.async_tool()(quick)
        server.start(host="127.0.0.1", port=0)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        results: dict[str, list[tuple[float, float]]] = {"sbatch": [], "submitit": [], "ours": []}
        try:
            by_sbatch(folder), by_submitit(executor, -1), by_server(conn, -1)  # warm-up, not counted
            ways = {
                "sbatch": lambda n: by_sbatch(folder),
                "submitit": lambda n: by_submitit(executor, n),
                "ours": lambda n: by_server(conn, n),
            }
            names = list(ways)
            for n in range(args.jobs):  # the order turns each round: no way always follows the same one
                for name in names[n % 3 :] + names[: n % 3]:
                    results[name].append(ways[name](n))
        finally:
            conn.close()
            server.stop()
    lines = [
        f"{args.jobs} jobs per way, one at a time, interleaved in turning order; seconds, median / p90 "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}).",
        "",
        "| way | submit → start | end → delivered |",
        "|---|---|---|",
    ]
    for way, pairs in results.items():
        lines.append(f"| {way} | {summary([p[0] for p in pairs])} | {summary([p[1] for p in pairs])} |")
    over = {
        phase: statistics.median(
            [o[phase] - s[phase] for o, s in zip(results["ours"], results["submitit"], strict=True)]
        )
        for phase in (0, 1)
    }
    lines += [
        "",
        f"Our executor over submitit alone (median of per-job differences): submit → start "
        f"{over[0]:+.3f} s, end → delivered {over[1]:+.3f} s.",
    ]
    text = "\n".join(lines)
    print(text)
    if args.md:
        Path(args.md).write_text(text + "\n")
    if args.json:
        figures = {
            "jobs": args.jobs,
            "ways": {
                way: {
                    "submit_to_start_p50": statistics.median(p[0] for p in pairs),
                    "end_to_delivered_p50": statistics.median(p[1] for p in pairs),
                    "total_p50": statistics.median(p[0] + p[1] for p in pairs),
                }
                for way, pairs in results.items()
            },
            "ours_minus_submitit_s": {"submit_to_start": over[0], "end_to_delivered": over[1]},
            "ours_over": {
                base: statistics.median(
                    (o[0] + o[1]) / (b[0] + b[1]) for o, b in zip(results["ours"], results[base], strict=True)
                )
                for base in ("sbatch", "submitit")
            },
        }
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
