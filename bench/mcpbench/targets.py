"""The targets of issue 28 (performance, round 3), checked against one run.

Each row is (target, measured, verdict, bound by). Verdicts: "met", "MISSED (by ...)", "n/a" when
the run did not measure it, "figure" for a new path the issue compares without a target. "bound by"
names what the profiles say bounds a miss (bench/findings.md, section 13).
"""

from __future__ import annotations

import statistics
from typing import Any

from . import stats
from .matrix import CEILING, OURS, OURS_CACHED, OURS_MODERN, OURS_NOPROV, OURS_OTEL, OURS_PRE

LEGACY = "nanohub-mcp 0.4.7"
Row = tuple[str, str, str, str]

# what the profiles name for each target when it is missed (findings.md §13)
BOUNDS = {
    "rps": "CPU per call (next rows): the tool's path through the core and the provenance record and its writer "
           "thread; the HTTP edge costs what bare Tornado does (ping 1.00x in instructions without records, 15.7 "
           "system calls per request vs 16.9; bench/hotpath.md: HTTP edge; §13.1)",
    "legacy": "same per-call CPU as the ceiling row; 0.4.x answers on a thread per connection (§13.1)",
    "cpu": "the provenance record made and stored on its writer thread (~110k instructions at the seam; "
           "bench/provenance.md), the tool's path through the core (tools/call 1.04x vs ping 1.00x without records; "
           "bench/hotpath.md), the inline lane's 2 system calls per call",
    "p99": "the tail follows CPU per call with 64 connections on one core; no stall seen since records left the call "
           "path (bench/hotpath.md: HTTP edge, the c=64 tail)",
    "era": "per-request _meta/header checks of the 2026-07-28 era (§13.2)",
    "cold": "~156 modules of ours at ~0.3-1 M instructions each (importlib's own per-module work ~0.3 M), "
            "registering the tools (~1.5 M each), the exception tree's classes (bench/startup.md, §13.3)",
    "df": "the 24 + 28 MB texts (records, escaped) and their UTF-8 copies, the escape's replaces, a string per cell "
          "(joined 4,096 rows at a time); without the fast extra Python's float spelling (§13.4)",
    "array": "without the fast extra: Python's float spelling of every element (§13.4)",
    "dask": "a lone call: two HTTP requests, the loop-to-Dask-client hand-over; host load (bench/jobs.md, §13.10)",
    "stdio": "per-line pipeline cost shared with HTTP (§13.1)",
    "workers": "two busy processes on two cores and wrk: CPU per call rises for the ceiling too (its own 2 ÷ 1 "
               "beside it); both workers' provenance writers share one SQLite file (+10-25 us per record) (§13.6)",
    "redis": "not Redis's instructions (+1.8 % per call; its seam 8.3k per request, bench/state_seam.py): a "
             "1-process server's CPU seconds on 2 cores move between processes and rounds (read the one-core "
             "ratio beside it; bench/scaleout.md, §13.6)",
    "otel": "the OpenTelemetry SDK's own span (8 attributes) and measurement (6, with its exemplar), counted alone "
            "in the same run ('SDK alone' in the row): off + that floor is already over 1.15x; above it, the tracing "
            "layer's own work (~10k instructions in process), the provenance record's trace and span ids (~7k) "
            "and the HTTP rows' run-to-run movement (±10-30k with records on) (§13.7, bench/otel.md)",
    "prov": "the record made (~26k instructions: the result's and arguments' JSON, the row), stored (~27k) and "
            "handed over (~19k) with SQLite: one Python-made row per call (~72k) against ~55k that 1.05x leaves; "
            "the HTTP instruction row moves ±10 % between runs; in CPU seconds also the record's system time (~1 WAL "
            "page written a call): made on the serving loop instead of the writer thread, a record costs the loop "
            "what loop and thread cost together, and lengthens the c=64 tail (bench/provenance.md, twentieth to "
            "twenty-second passes)",
    "cache": "a front hit still runs the layers before the cache and leaves a provenance record; each held entry is "
             "checked against cache.sqlite3 once a second, every few calls under valgrind (§13.8)",
    "rappture": "drawing the curve's PNG once the run file is read (matplotlib's artists, Agg, the palette "
                "and its deflate): ~45 M instructions per plot, overlapped with the program's exit since 190fde3 "
                "(§13.9); without the plot ~1.02x",
}


def _x(v: float | None, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}x"


def _spread(r: tuple[float, float, float] | None) -> str:
    return _x(r and r[0]) + (f" (rounds {r[1]:.2f}-{r[2]:.2f})" if r and r[1] != r[2] else "")


def _verdict(ok: bool | None, miss: str = "") -> str:
    if ok is None:
        return "n/a"
    return "met" if ok else f"MISSED{(' (' + miss + ')') if miss else ''}"


def _at_most(value: float | None, limit: float) -> str:
    return _verdict(None if value is None else value <= limit, "" if value is None else f"{value / limit - 1:.0%} over")


def _at_least(value: float | None, limit: float) -> str:
    return _verdict(
        None if value is None else value >= limit, "" if value is None else f"{1 - value / limit:.0%} short"
    )


def _row(target: str, shown: str, verdict: str, bound: str) -> Row:
    return (target, shown, verdict, BOUNDS[bound] if verdict.startswith("MISSED") else "")


def instr(d: dict[str, Any], num: str, den: str) -> float | None:
    """Instructions per call of ``num`` ÷ ``den`` (valgrind, see instructions.py)."""
    e = (d.get("instructions") or {}).get("entries", {})
    a, b = (e.get(num) or {}).get("per_call"), (e.get(den) or {}).get("per_call")
    return a / b if a and b else None


def _instr_text(d: dict[str, Any], num: str, den: str) -> str:
    r = instr(d, num, den)
    at = (d.get("instructions") or {}).get("commit")
    return "" if r is None else f"; instructions {r:.2f}x" + (f" (at {at})" if at else "")


def _sdk_floor_text(d: dict[str, Any]) -> str:
    """The OpenTelemetry SDK's own cost per traced call (counted alone, instructions.sdk_floor)
    against the untraced call: the ratio tracing cannot go below with that SDK, and ours above it."""
    data = d.get("instructions") or {}
    floor = (data.get("sdk_floor") or {}).get("sdk floor: SERVER span + histogram")
    e = data.get("entries", {})
    off, on = (e.get(OURS) or {}).get("per_call"), (e.get(OURS_OTEL) or {}).get("per_call")
    if not floor or not off:
        return ""
    ours = f", ours above it {on - off - floor:+,.0f}" if on else ""
    return f"; the SDK alone {floor:,.0f} instructions a call: off + that = {(off + floor) / off:.2f}x{ours}"


def _http(d: dict[str, Any]) -> list[Row]:
    rps = stats.ratio(d, OURS, CEILING, 16, "rps")
    cpu = stats.ratio(d, OURS, CEILING, 16, "cpu_us_per_req")
    p99 = stats.ratio(d, OURS, CEILING, 64, "p99_us")
    era = stats.ratio(d, OURS_MODERN, OURS, 16, "cpu_us_per_req")
    cpu_i = instr(d, OURS, CEILING)
    rows = [
        _row(
            "tools/call c=16, handshake era: req/s ÷ ceiling ≥ 0.85",
            _spread(rps),
            _at_least(rps and rps[0], 0.85),
            "rps",
        )
    ]
    for c in (1, 16, 64):
        r = stats.ratio(d, OURS, LEGACY, c, "rps") if LEGACY in d.get("entries", {}) else None
        rows.append(_row(f"req/s ÷ the 0.4.x package at c={c} ≥ 1.3", _spread(r), _at_least(r and r[0], 1.3), "legacy"))
    worst = max(x for x in (cpu and cpu[0], cpu_i) if x is not None) if (cpu or cpu_i) else None
    rows += [
        _row(
            "CPU per call ÷ ceiling ≤ 1.25 (c=16 seconds; instructions)",
            f"{_spread(cpu)}{_instr_text(d, OURS, CEILING)}",
            _at_most(worst, 1.25),
            "cpu",
        ),
        _row("p99 at c=64 ÷ ceiling ≤ 1.5", _spread(p99), _at_most(p99 and p99[0], 1.5), "p99"),
        _row(
            "2026-07-28 era CPU ÷ handshake era ≤ 1.10 (c=16)",
            f"{_spread(era)}{_instr_text(d, OURS_MODERN, OURS)}",
            _at_most(era and era[0], 1.10),
            "era",
        ),
    ]
    return rows


def cold_instr(d: dict[str, Any]) -> float | None:
    """Instructions to the first answer, ours ÷ the ceiling's (callgrind, startup_count.py; full runs only)."""
    counts = (d.get("instructions") or {}).get("cold_start") or {}
    ours, ceiling = counts.get("ours"), counts.get("ceiling")
    return ours / ceiling if ours and ceiling else None


def _cold(d: dict[str, Any]) -> list[Row]:
    ours, ceiling = stats.cold(d, OURS), stats.cold(d, CEILING)
    per_round = stats.cold_ratio(d, OURS, CEILING)  # (the runs are interleaved: round i of each in turn)
    cs = per_round[0] if per_round else stats.div(ours, ceiling)
    ins = cold_instr(d)
    shown = "-"
    if cs and ours and ceiling:
        shown = f"{_x(cs)} ({ours:.0f} ms vs {ceiling:.0f} ms, medians"
        if per_round:
            shown += f"; rounds {per_round[1]:.2f}-{per_round[2]:.2f}; ratio of the medians {_x(ours / ceiling)}"
        shown += ")"
    if ins is not None:
        shown += f"; instructions {ins:.2f}x"
    # instructions when counted decide, as in the feature rows: the host's load does not move them
    return [_row("cold start ÷ bare Tornado's ≤ 1.25", shown, _at_most(ins if ins is not None else cs, 1.25), "cold")]


def _science(d: dict[str, Any]) -> list[Row]:
    rows = (d.get("science") or {}).get("rows") or []
    out = []
    for value, limit, key, label in (
        ("DataFrame", 2.0, "df", "300k-row DataFrame inline ÷ df.to_json(orient='records') ≤ 2.0"),
        ("array", 1.3, "array", "1e6-float array inline ÷ its JSON baseline ≤ 1.3"),
    ):
        row = next(
            (
                r
                for r in rows
                if value.lower() in r["value"].lower() and r["case"].startswith("nanohubmcp:") and "inline" in r["case"]
            ),
            None,
        )
        ratio = row["ratio"] if row else None
        shown = f"{ratio:.2f}x, {row['bytes']:,} bytes" if row else "-"
        out.append(_row(label, shown, _at_most(ratio, limit), key))
    return out


def _dask(d: dict[str, Any]) -> list[Row]:
    k = (d.get("jobs") or {}).get("dask_ms")
    path = "server" if k and "server_p50" in k else "executor"  # a job through a server, when measured
    r = k[f"{path}_p50"] / k["client_submit_p50"] if k else None
    shown = f"{_x(r)} ({k[f'{path}_p50']:.1f} ms vs {k['client_submit_p50']:.1f} ms, p50, {path})" if k else "-"
    return [_row("Dask job ÷ client.submit(f).result() (p50) ≤ 1.5", shown, _at_most(r, 1.5), "dask")]


def _stdio(d: dict[str, Any]) -> list[Row]:
    s = d.get("stdio") or {}
    r = (s.get("ours_over") or {}).get("mcp SDK")
    shown = f"{_x(r)} ({s['median']['nanohubmcp']:,.0f} vs {s['median']['mcp SDK']:,.0f} calls/s)" if r else "-"
    return [_row("stdio round trips ÷ official SDK's ≥ 3", shown, _at_least(r, 3.0), "stdio")]


def _scaleout(d: dict[str, Any]) -> list[Row]:
    so = d.get("scaleout") or {}
    s = so.get("summary") or {}
    mem, red, two = s.get("memory, 1 process"), s.get("redis, 1 process"), s.get("redis, 2 workers")
    # Per round (the cells of a round run back to back), then the median; a run made before
    # scaleout.py reported the rounds gives the ratio of the medians.
    scaling = so.get("scaling") or {}

    def rounds(r: dict[str, Any] | None) -> str:
        seen = r["rounds"] if r else []
        return f" (rounds {min(seen):.2f}-{max(seen):.2f})" if len(seen) > 1 else ""

    # The verdict's basis: 1 process on one core against 2 on two (the same work per call on 1 and
    # 2 cores; bench/scaleout.md), when the run has it; else both on the same 2 cores.
    one = scaling.get("redis, one core")
    ours = one or scaling.get("redis")
    ceiling = scaling.get("ceiling, one core" if one else "ceiling")
    single = s.get("redis, 1 process, one core" if one else "redis, 1 process")
    w = ours["median"] if ours else (two["rps"] / red["rps"] if two and red and red["rps"] else None)
    basis = "1 process on one core" if one else "1 process on the same 2 cores"
    beside = f"; the ceiling in the same rounds {_x(ceiling['median'])}" if ceiling else ""
    if one and scaling.get("redis") and scaling.get("ceiling"):
        beside += (f"; with 1 process on the same 2 cores: {_x(scaling['redis']['median'])}, the ceiling "
                   f"{_x(scaling['ceiling']['median'])}")
    # The verdict's basis: both servers pinned to the same core, when the run has it: free on two
    # cores, where the kernel puts each 1-process server (beside wrk or alone) moves its CPU per
    # call by more than Redis costs (bench/scaleout.md, "by wrk"); the two-core ratio beside it.
    pinned = (so.get("state_cpu") or {}).get("redis ÷ memory, one core")
    free = (so.get("state_cpu") or {}).get("redis ÷ memory")
    state = pinned or free
    if pinned:
        mem, red = s.get("memory, 1 process, one core") or mem, s.get("redis, 1 process, one core") or red
    medians = (red["cpu_ms"] + red["redis_cpu_ms"]) / mem["cpu_ms"] if red and mem and mem["cpu_ms"] else None
    cpu = state["median"] if state else medians
    cpu_server = red["cpu_ms"] / mem["cpu_ms"] if red and mem and mem["cpu_ms"] else None
    also = f"; both on the same 2 cores {_x(free['median'])}{rounds(free)}" if pinned and free else ""
    where = "both on one core, " if pinned else ""
    return [
        _row(
            "2 processes ÷ 1 process req/s (c=16, 2 cores, Redis state) ≥ 1.7",
            f"{_x(w)}{rounds(ours)} ({two['rps']:,.0f} vs {single['rps']:,.0f} req/s, {basis}){beside}"
            if w and two and single else "-",
            _at_least(w, 1.7),
            "workers",
        ),
        _row(
            "Redis state CPU per call ÷ memory state ≤ 1.3 (server + redis-server CPU)",
            (f"{_x(cpu)}{rounds(state)} ({where}per round; ratio of the medians {_x(medians)}, server alone "
             f"{_x(cpu_server)}){also}" if state else f"{_x(cpu)} (server alone {_x(cpu_server)})") if cpu else "-",
            _at_most(cpu, 1.3),
            "redis",
        ),
    ]


def _layers(d: dict[str, Any]) -> list[Row]:
    otel = stats.ratio(d, OURS_OTEL, OURS, 16, "cpu_us_per_req")
    prov = stats.ratio(d, OURS, OURS_NOPROV, 16, "cpu_us_per_req")
    cache = stats.ratio(d, OURS_CACHED, OURS, 16, "cpu_us_per_req")
    otel_i, prov_i, cache_i = instr(d, OURS_OTEL, OURS), instr(d, OURS, OURS_NOPROV), instr(d, OURS_CACHED, OURS)

    def judged(r: tuple[float, float, float] | None, i: float | None) -> float | None:
        return i if i is not None else (r and r[0])  # instructions when counted: the load does not move them

    return [
        _row(
            "OpenTelemetry SDK on (in-memory exporter) CPU ÷ off ≤ 1.15",
            f"{_spread(otel)}{_instr_text(d, OURS_OTEL, OURS)}{_sdk_floor_text(d)}",
            _at_most(judged(otel, otel_i), 1.15),
            "otel",
        ),
        _row(
            "provenance on ÷ off CPU ≤ 1.05",
            f"{_spread(prov)}{_instr_text(d, OURS, OURS_NOPROV)}",
            _at_most(judged(prov, prov_i), 1.05),
            "prov",
        ),
        _row(
            "cache hit ÷ trivial uncached call CPU ≤ 1.0",
            f"{_spread(cache)}{_instr_text(d, OURS_CACHED, OURS)}",
            _at_most(judged(cache, cache_i), 1.0),
            "cache",
        ),
    ]


def _rappture(d: dict[str, Any]) -> list[Row]:
    r = d.get("rappture") or {}
    ratio = (r.get("ratio") or {}).get("median")
    shown = (
        f"{_x(ratio, 3)} ({r['mcp_call_s']['median']:.3f} s vs {r['direct_s']['median']:.3f} s; data only "
        f"{r['data_ratio']['median']:.3f}x)"
        if ratio
        else "-"
    )
    return [_row("Rappture call ÷ its command alone (a 1 s tool) ≤ 1.05", shown, _at_most(ratio, 1.05), "rappture")]


def _hops_text(hops: dict[str, Any]) -> str:
    """``modules / hops / functions; ...`` of bench/hops.py's JSON (HTTP; stdio), or "-"."""
    if not hops.get("streamable-http"):
        return "-"
    return "; ".join(" / ".join(str((hops.get(t) or {}).get(k, "-")) for k in ("modules", "hops", "functions"))
                     for t in ("streamable-http", "stdio"))


def _figures(d: dict[str, Any]) -> list[Row]:
    """The new paths the issue compares without a target: the redesign, Sim2L, Slurm."""
    pre = stats.ratio(d, OURS, OURS_PRE, 16, "cpu_us_per_req")
    pre_rps = stats.ratio(d, OURS, OURS_PRE, 16, "rps")
    hops = d.get("hops") or {}
    h = hops.get("streamable-http") or {}
    s = d.get("sim2l") or {}
    sl = d.get("slurm") or {}
    over = sl.get("ours_over") or {}
    return [
        (
            f"redesigned core ÷ main before it ({OURS_PRE.split('(')[-1].rstrip(')')}): CPU per call c=16",
            f"{_spread(pre)}{_instr_text(d, OURS, OURS_PRE)}; req/s {_spread(pre_rps)}",
            "figure",
            "",
        ),
        (
            "redesigned core: modules / hops / functions per tools/call in the steady state (HTTP; stdio); "
            "issue 22: hops at most 39; 29 (bench/hops.md)",
            _hops_text(d.get("hops-steady") or {}),
            "figure",
            "",
        ),
        (
            "redesigned core: modules / hops / functions per tools/call, a first call (HTTP; stdio)",
            f"{h.get('modules', '-')} / {h.get('hops', '-')} / {h.get('functions', '-')}; "
            + " / ".join(str((hops.get("stdio") or {}).get(k, "-")) for k in ("modules", "hops", "functions"))
            if h
            else "-",
            "figure",
            "",
        ),
        (
            "Sim2L call ÷ papermill alone (kernel start included)",
            f"{s['mcp_call_s']['median'] / s['papermill_s']['median']:.2f}x ({s['mcp_call_s']['median']:.2f} s vs "
            f"{s['papermill_s']['median']:.2f} s; stored run {s['stored_call_s']['median']:.3f} s)"
            if s.get("papermill_s")
            else "-",
            "figure",
            "",
        ),
        (
            "Slurm job via our server ÷ submitit alone; ÷ sbatch alone (submit→start + end→delivered, p50)",
            f"{_x(over.get('submitit'))}; {_x(over.get('sbatch'))}" if over else "-",
            "figure",
            "",
        ),
    ]


def rows(d: dict[str, Any]) -> list[Row]:
    return (
        _http(d)
        + _cold(d)
        + _science(d)
        + _dask(d)
        + _stdio(d)
        + _scaleout(d)
        + _layers(d)
        + _rappture(d)
        + _figures(d)
    )


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None
