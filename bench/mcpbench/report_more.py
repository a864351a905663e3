"""The sections of ``results.md`` that come from the separate scripts: stdio, scientific results,
jobs, authorization (see ``extras.py``), and the markdown table helper both renderers use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Section = tuple[str, list[str], list[list[str]], str]  # (intro, head, rows, align)
EXECUTORS = ["threads", "processes", "dask"]  # the raw JSON's keys come back sorted


def table(head: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    """A markdown table; ``align`` has one letter per column (``l`` or ``r``; default: first left)."""
    align = align or "l" + "r" * (len(head) - 1)
    marks = ["---:" if a == "r" else "---" for a in align]
    return [
        "| " + " | ".join(head) + " |",
        "| " + " | ".join(marks) + " |",
        *("| " + " | ".join(r) + " |" for r in rows),
        "",
    ]


def _section(d: dict[str, Any], key: str, title: str, build: Callable[[dict[str, Any]], Section]) -> list[str]:
    data = d.get(key)
    if data is None:
        return []
    if "error" in data:
        return [f"## {title}", "", f"Not measured: `{data['error'][-300:]}`", ""]
    intro, head, rows, align = build(data)
    return [f"## {title}", "", f"{intro} Command: `{data['command']}`.", "", *table(head, rows, align)]


def _stdio(s: dict[str, Any]) -> Section:
    rows = [
        [
            name,
            " ".join(f"{r:,.0f}" for r in rates),
            f"{s['median'][name]:,.0f}",
            "1.00" if name == "nanohubmcp" else f"{s['ours_over'][name]:.2f}",
        ]
        for name, rates in sorted(s["calls_per_s"].items(), key=lambda item: item[0] != "nanohubmcp")
    ]
    intro = (
        f"One call at a time after `initialize` (2025-11-25); {s['rounds']} round(s) of {s['calls']:,} calls, "
        "the servers visited in turn; 'ours ÷ theirs' is taken per round, then the median."
    )
    return intro, ["server", "calls/s per round", "median calls/s", "ours ÷ theirs"], rows, ""


def _science(s: dict[str, Any]) -> Section:
    rows = [
        [r["value"], r["case"], f"{r['seconds'] * 1e3:,.1f}", f"{r['ratio']:.2f}", f"{r['bytes']:,}"] for r in s["rows"]
    ]
    intro = (
        f"In one process, median of {s['repeats']}. 'inline' = the value as MCP content plus the JSON-RPC "
        "response bytes the transport writes (the whole data on the wire); the default for large values is "
        "a summary and a `resource_link` the client reads when it wants the data. 'peer, by hand' = what a "
        "user of the official SDK or fastmcp writes for the same result (their tools return `str` or "
        "`Image`), with the result shape those servers send, encoded here with `json.dumps`."
    )
    return intro, ["value", "case", "ms", "÷ baseline", "bytes"], rows, "llrrr"


def _jobs(j: dict[str, Any]) -> Section:
    rows = [
        [f"submit → result, {ex} ({j['jobs']} jobs)", f"p50 {v['p50']:.1f} ms, p99 {v['p99']:.1f} ms"]
        for ex, v in sorted(j["latency_ms"].items(), key=lambda item: EXECUTORS.index(item[0]))
    ]
    for key, how in (("dask_ms", "back to back"), ("dask_spaced_ms", "30 ms apart")):
        k = j.get(key)
        for path, what in (("executor", "the executor"), ("server", "a server (MCP task)")):
            if k and f"{path}_p50" in k:
                rows.append(
                    [
                        f"Dask, {how}: a job through {what} vs `client.submit(f).result()` (p50)",
                        f"{k[f'{path}_p50']:.1f} ms vs {k['client_submit_p50']:.1f} ms "
                        f"({k[f'{path}_p50'] / k['client_submit_p50']:.2f}x)",
                    ]
                )
    rows += [
        [f"progress updates the store sustains ({kind}, one thread)", f"{1e6 / micro:,.0f}/s ({micro} µs each)"]
        for kind, micro in j.get("progress_us", {}).items()
    ]
    rows.append(["store file per 1,000 finished jobs", f"{j['kib_per_1000']} KiB"])
    rows.append([f"restart to first answer, {j['stored']:,} stored jobs", f"{j['restart_ms']:.1f} ms"])
    intro = (
        "One job at a time over one keep-alive HTTP connection (`POST /tools/quick` → 202 + job id, then "
        "`get_job_result` polled back to back); Dask: a `LocalCluster` with one worker process."
    )
    return intro, ["measure", "value"], rows, "ll"


def _auth(a: dict[str, Any]) -> Section:
    rows = [[name, f"{micro:,.1f}"] for name, micro in sorted(a["verify_us"].items(), key=lambda item: item[1])]
    intro = (
        "Microseconds per `verify(token)` in one process; the end-to-end price is the 'bearer token' rows "
        "of the HTTP tables (same server and tool, started with `--token`)."
    )
    return intro, ["verifier", "µs per verify"], rows, ""


def render(d: dict[str, Any]) -> list[str]:
    return (
        _section(
            d, "stdio", "stdio: `tools/call add` round trips, one client for all (`bench/stdio_roundtrip.py`)", _stdio
        )
        + _section(
            d, "science", "Scientific results: time and bytes on the wire (`bench/science_results.py`)", _science
        )
        + _section(d, "jobs", "Jobs: submit → result, store, restart, Dask (`bench/jobs.py`)", _jobs)
        + _section(d, "auth", "Authorization: the verifier alone (`bench/auth_cost.py`)", _auth)
    )


def _not_measured(title: str, data: dict[str, Any] | None) -> list[str] | None:
    if data is None:
        return []
    if "error" in data:
        return [f"## {title}", "", f"Not measured: `{str(data['error'])[-300:]}`", ""]
    return None


def _instructions(d: dict[str, Any], key: str = "instructions") -> list[str]:
    data = d.get(key)
    title = "CPU per call in instructions (valgrind)"
    if data and data.get("commit"):
        title += f", nanohubmcp at {data['commit']}"
    skipped = _not_measured(title, data)
    if skipped is not None:
        return skipped
    assert data is not None
    rows = data["entries"]
    base = (rows.get("bare Tornado (ceiling)") or {}).get("per_call")
    body = [
        [
            name,
            "-" if r["per_call"] is None else f"{r['per_call']:,.0f}",
            "-" if not (r["per_call"] and base) else f"{r['per_call'] / base:.2f}",
            f"{r['seconds']:.0f}",
        ]
        for name, r in rows.items()
    ]
    intro = (
        f"Each server under `valgrind --tool=exp-bbv --instr-count-only=yes` (`PYTHONHASHSEED=0`), twice: "
        f"{data['low_calls']} and {data['high_calls']} sequential tools/call on one keep-alive connection after "
        f"the same session opening and {data['warmup_calls']} warm-up calls; instructions per call = the "
        "difference of the totals ÷ the difference of the calls (user space, all threads of the server). "
        "Our servers decide what they decide by the clock as natively (`BENCH_NATIVE_PATH=1`: a quick sync tool "
        "stays on the event loop once it qualified; provenance records written in full batches of 256, which "
        "the two call counts are whole multiples of; the result cache's front reads the store no more often than "
        "natively, where it is once per ~1,500 hits)."
    )
    floor = data.get("sdk_floor") or {}
    if floor and "error" not in floor:
        intro += (
            " The OpenTelemetry SDK alone, set up as the traced server sets it up (`otel_cost.py --instructions "
            "--only sdk`: what a traced call asks of it, nothing of ours): "
            + "; ".join(f"{name.removeprefix('sdk floor').lstrip(':, ')} {v:,.0f}" for name, v in floor.items())
            + "."
        )
    return [f"## {title}", "", intro, "", *table(["server", "instructions/call", "÷ ceiling", "wall s"], body)]


def _scaleout(s: dict[str, Any]) -> Section:
    def share(v: dict[str, Any]) -> str:
        cpu, reqs = v.get("busiest_worker_share"), v.get("busiest_worker_requests")
        return "-" if cpu is None or cpu >= 1.0 else f"{cpu:.2f} / {reqs:.2f}" if reqs is not None else f"{cpu:.2f}"

    rows = [
        [
            name,
            f"{v['rps']:,.0f}",
            f"{v['cpu_ms'] * 1000:,.0f}",
            f"{v['loop_cpu_ms'] * 1000:,.0f}" if "loop_cpu_ms" in v else "-",
            f"{v['redis_cpu_ms'] * 1000:,.0f}",
            f"{v['redis_commands']:.3f}" if "redis_commands" in v else "-",
            f"{v['wrk_cpu_ms'] * 1000:,.0f}" if "wrk_cpu_ms" in v else "-",
            share(v),
            f"{v['loop_switches']:.2f}" if "loop_switches" in v else "-",
            ("-" if v["inline_end"] < 0 else f"{v['inline_end']:.1f}") if "inline_end" in v else "-",
            f"{v['loop_beside_wrk']:.2f}" if v.get("loop_beside_wrk", -1) >= 0 else "-",
        ]
        for name, v in s["summary"].items()
    ]
    scaling = "; ".join(
        f"{label} {r['median']:.2f}x (rounds {', '.join(f'{x:.2f}' for x in r['rounds'])})"
        for label, r in (s.get("scaling") or {}).items()
    )
    state_cpu = "; ".join(
        f"{label} {r['median']:.2f}x (rounds {', '.join(f'{x:.2f}' for x in r['rounds'])})"
        for label, r in (s.get("state_cpu") or {}).items()
    )
    intro = (
        f"`nanohubmcp run` of `servers/scaleout_app.py`, tools/call `add` at c={s['args'].get('conc')}, "
        f"{s['args'].get('rounds')} rotated round(s) x {s['args'].get('seconds')} s, servers on CPUs "
        f"{s['args'].get('server_cpu')}, wrk on CPU {s['args'].get('client_cpu')}; Redis memory per held session "
        f"{s['redis_bytes_per_session']:,.0f} bytes. 'loop' is the CPU of the processes' main threads (the "
        "event loops; the rest is their other threads: provenance writer, worker pool); 'busiest' the share "
        "of the server CPU / of the requests taken by the busiest worker (0.50 = even)."
        + " 'one core': the 1-process variant pinned to one CPU (the 2 processes have two); 'switches' the "
        "event loops' voluntary context switches per call (sleeping in epoll, or waiting for the interpreter lock "
        "another thread of the process holds); 'inline' the share of the processes running `add` on the event "
        "loop at the cell's end (the worker pool's inline lane); 'by wrk' the share of 0.1 s samples that found "
        "an event loop on wrk's CPU (a 1-process server free on two cores may sit beside wrk or alone)."
        + (f" 2 processes ÷ 1, per round: {scaling}." if scaling else "")
        + (f" Redis ÷ memory CPU per call, per round: {state_cpu}." if state_cpu else "")
    )
    headers = [
        "variant", "req/s", "server CPU µs/call", "loop µs/call", "redis-server CPU µs/call", "Redis commands/call",
        "wrk CPU µs/call", "busiest", "switches", "inline", "by wrk",
    ]
    return intro, headers, rows, "lrrrrrrrrrr"


def _spread(v: dict[str, float], digits: int = 3) -> list[str]:
    return [f"{v['median']:.{digits}f}", f"{v['min']:.{digits}f}-{v['max']:.{digits}f}"]


def _rappture(r: dict[str, Any]) -> Section:
    rows = [
        ["command alone (driver → run file)", *_spread(r["direct_s"])],
        ["MCP call (plot)", *_spread(r["mcp_call_s"])],
        ["MCP call, data only", *_spread(r["data_call_s"])],
        ["call ÷ command (per round)", *_spread(r["ratio"])],
        ["call - command, s", *_spread(r["overhead_s"])],
        ["data only ÷ command", *_spread(r["data_ratio"])],
    ]
    intro = f"A one-second Rappture tool (`bench/rappture_tool`), {r['rounds']} alternating rounds."
    return intro, ["what", "median s / x", "min-max"], rows, "lrr"


def _sim2l(s: dict[str, Any]) -> Section:
    rows = [
        ["papermill alone", *_spread(s["papermill_s"])],
        ["MCP call", *_spread(s["mcp_call_s"])],
        ["MCP call, stored run", *_spread(s["stored_call_s"])],
        ["call - papermill", *_spread(s["overhead_s"])],
    ]
    intro = f"The cooling Sim2L, {s['rounds']} round(s), fresh inputs each; both include a kernel start."
    return intro, ["what", "median s", "min-max"], rows, "lrr"


def _slurm(s: dict[str, Any]) -> Section:
    rows = [
        [
            way,
            f"{v['submit_to_start_p50']:.3f}",
            f"{v['end_to_delivered_p50']:.3f}",
            f"{v['total_p50']:.3f}",
        ]
        for way, v in s["ways"].items()
    ]
    over = s["ours_over"]
    intro = (
        f"{s['jobs']} short jobs per way on the single-node Slurm cluster, one at a time, interleaved; "
        f"ours ÷ submitit {over['submitit']:.2f}x, ÷ sbatch {over['sbatch']:.2f}x (per-job ratios, median)."
    )
    return intro, ["way", "submit → start s", "end → delivered s", "sum s"], rows, "lrrr"


def _hops(h: dict[str, Any]) -> Section:
    rows = [[k, str(v["modules"]), str(v["hops"]), str(v["functions"])] for k, v in h.items() if isinstance(v, dict)]
    intro = ("Modules of nanohubmcp a first tools/call of a sync tool enters, after one call before it (median of "
             "rounds).")
    return intro, ["transport", "modules", "hops", "functions"], rows, "lrrr"


def _hops_steady(h: dict[str, Any]) -> Section:
    intro, head, rows, align = _hops(h)
    intro = ("The same in the steady state, after ten calls before it (median of rounds; the figure issue 22 bounds: "
             "at most 39 hops over Streamable HTTP, 29 over stdio: bench/hops.md).")
    return intro, head, rows, align


def _otel(o: dict[str, Any]) -> Section:
    rows = [[str(k), json_short(v)] for k, v in o.items() if k not in ("command", "seconds")]
    return "OpenTelemetry on/off measured by the tracing engineer's script.", ["key", "figures"], rows, "ll"


def json_short(v: Any) -> str:
    import json

    return json.dumps(v)[:200]


def render_round3(d: dict[str, Any]) -> list[str]:
    """The sections of the paths round 3 added (issue 28)."""
    return (
        _instructions(d)
        + _instructions(d, "instructions_earlier")
        + _section(d, "hops", "Redesigned core: module hops per call", _hops)
        + _section(d, "hops-steady", "Redesigned core: module hops per call, steady state", _hops_steady)
        + _section(d, "scaleout", "Scale-out: Redis state and 2 processes", _scaleout)
        + _section(d, "rappture", "Rappture tool: MCP call against its command alone", _rappture)
        + _section(d, "sim2l", "Sim2L: MCP call against papermill alone", _sim2l)
        + _section(d, "slurm", "Slurm jobs: our executor against submitit and sbatch alone", _slurm)
        + _section(d, "otel", "OpenTelemetry (bench/otel_cost.py)", _otel)
    )
