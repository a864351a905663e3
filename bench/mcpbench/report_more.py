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
    if "dask_ms" in j:
        k = j["dask_ms"]
        rows.append(
            [
                "Dask: a job through the executor vs `client.submit(f).result()` (p50)",
                f"{k['executor_p50']:.1f} ms vs {k['client_submit_p50']:.1f} ms "
                f"({k['executor_p50'] / k['client_submit_p50']:.2f}x)",
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
