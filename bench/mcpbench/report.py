"""One run's raw JSON rendered as ``results.md``: targets, ratios, absolute figures, commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import report_more, stats, targets
from .matrix import CEILING, ENTRIES, MODERN, OURS, OURS_MODERN, PROTOCOL
from .report_more import table


def names(d: dict[str, Any], section: str = "entries") -> list[str]:
    """Entry names in the matrix's order (the raw JSON's keys are sorted), present in ``section``."""
    known = [e.name for e in ENTRIES]
    order = d.get("order") or sorted(d["entries"], key=lambda n: known.index(n) if n in known else len(known))
    return [n for n in order if n in d.get(section, {})]


def _n(v: float | None, digits: int = 0) -> str:
    return "-" if v is None else f"{v:,.{digits}f}"


def _r(v: tuple[float, float, float] | float | None) -> str:
    if v is None:
        return "-"
    if isinstance(v, tuple):
        return f"{v[0]:.2f} ({v[1]:.2f}-{v[2]:.2f})" if v[1] != v[2] else f"{v[0]:.2f}"
    return f"{v:.2f}"


DEFAULTS = "3 rounds x 6 s per cell after a 3 s warm-up"
_PARTS = {"streams": "the held GET streams", "kernel": "the kernel's ping latency", "auth": "the authorization costs"}


def _skipped(d: dict[str, Any]) -> list[str]:
    """What the run's ``--skip`` left out, as the reader knows the parts."""
    words = str(d.get("command", "")).split()
    asked = words[words.index("--skip") + 1].split(",") if "--skip" in words[:-1] else []
    return [_PARTS.get(part, part) for part in asked]


def _header(d: dict[str, Any], raw: Path) -> list[str]:
    m, s = d["machine"], d["settings"]
    peers = m.get("peers", {})
    return [
        "# nanohubmcp benchmark: against its peers and a bare Tornado ceiling, in one run",
        "",
        f"**Date:** {d['date']} (UTC), {d.get('elapsed_s', 0) / 60:.1f} min. "
        f"**Machine:** {m.get('cpus')} CPUs ({m.get('cpu_model', '?')}), {m.get('mem_gib', '?')} GiB, "
        f"Linux {m.get('kernel')}, CPython {m.get('python')}, "
        f"load average (1, 5, 15 min) at start {' '.join(m.get('loadavg', []))}, at the end "
        f"{' '.join(d.get('loadavg_end', ['?']))}. Servers pinned to CPU {s['server_cpu']}, "
        f"wrk and the harness to CPU {s['client_cpu']} (taskset). Our servers' state directory: "
        f"{_state_dir(d.get('state_dir'))}.",
        f"**Versions:** nanohubmcp {m['ours'].get('nanohub-mcp')} (commit {m.get('commit')}"
        f"{', with uncommitted changes in nanohubmcp/' if m.get('nanohubmcp_dirty') else ''}) on tornado "
        f"{m['ours'].get('tornado')} · nanohub-mcp {peers.get('nanohub-mcp')} · mcp {peers.get('mcp')} · "
        f"fastmcp {peers.get('fastmcp')} · uvicorn {peers.get('uvicorn')} (h11 {peers.get('h11')}, uvloop "
        f"{peers.get('uvloop') or 'absent'}, httptools {peers.get('httptools') or 'absent'}) · starlette "
        f"{peers.get('starlette')} · pydantic {peers.get('pydantic')} · {m.get('wrk', 'wrk ?')}.",
        f"**Command:** `{d['command']}` → raw data `bench/{raw}`.",
        f"**Settings:** {s['rounds']} interleaved round(s) x {s['duration']} s per wrk cell (1 thread, "
        f"keep-alive, `--timeout 10s`, `lua/call.lua`), {s['warmup']} s warm-up at c=16; "
        f"concurrencies {s['conc_list']}; "
        f"cold start median of {s['coldstart_runs']}; "
        + (f"{s['streams']} streams held {s['hold']} s ({s.get('peer_streams', s['streams'])} for the peers); "
           if "streams" in d else "")
        + f"`big(n={s['big_n']:,})` x {s['big_calls']} per round"
        + (f"; kernel cell {s['kernel_seconds']} s." if "kernel" in d else "."),
        *([f"**Not in this run:** {', '.join(skipped)} (`--skip`); the defaults are {DEFAULTS}."]
          if (skipped := _skipped(d)) else []),
        "**Read the ratios**: they are taken per round within this run, then the median over rounds "
        "(min-max in brackets). Absolute figures move with the host's other load.",
        *([f"**Note:** {d['note']}"] if d.get("note") else []),
        "",
    ]


def _ratios(d: dict[str, Any]) -> list[str]:
    rows = []
    for name in names(d):
        c = d.get("coldstart", {}).get(stats.process_of(d, name), {}).get("median_ms")
        rows.append(
            [
                name,
                *(_r(stats.ratio(d, name, CEILING, k, "rps")) for k in (1, 16, 64)),
                _r(stats.ratio(d, name, CEILING, 16, "cpu_us_per_req")),
                _r(stats.ratio(d, name, CEILING, 64, "p99_us")),
                _r(stats.cold_ratio(d, name, CEILING) or stats.div(c, stats.cold(d, CEILING))),
                _r(stats.div(stats.rss(d, name), stats.rss(d, CEILING))),
                _r(stats.big_ratio(d, name, CEILING)),
            ]
        )
    head = [
        "server",
        "req/s c=1",
        "req/s c=16",
        "req/s c=64",
        "CPU/req c=16",
        "p99 c=64",
        "cold start",
        "RSS idle",
        "1 MB call (ours: a link)",
    ]
    return [
        "## Ratios against the ceiling (bare Tornado JSON-RPC)",
        "",
        "req/s: below 1 is slower than the ceiling; every other column: above 1 costs more.",
        "",
        *table(head, rows),
    ]


def _versus(d: dict[str, Any]) -> list[str]:
    rows = []
    for name in names(d):
        e = d["entries"][name]
        if e["role"] != "peer":
            continue
        # a peer in the 2026-07-28 era is compared with ours in that era
        modern = e.get("era", MODERN if MODERN in name else PROTOCOL) == MODERN
        ours = OURS_MODERN if modern and OURS_MODERN in d["entries"] else OURS
        rows.append(
            [
                name,
                "2026-07-28 era" if ours == OURS_MODERN else "handshake era",
                *(_r(stats.ratio(d, ours, name, k, "rps")) for k in (1, 16, 64)),
                _r(stats.ratio(d, name, ours, 16, "cpu_us_per_req")),
                _r(stats.ratio(d, name, ours, 64, "p99_us")),
                _r(stats.cold_ratio(d, name, OURS) or stats.div(stats.cold(d, name), stats.cold(d, OURS))),
                _r(stats.div(stats.rss(d, name), stats.rss(d, OURS))),
                _r(stats.big_ratio(d, name, OURS)),
            ]
        )
    head = [
        "peer",
        "ours in the",
        "our req/s ÷ theirs c=1",
        "c=16",
        "c=64",
        "their CPU/req ÷ ours",
        "their p99 ÷ ours c=64",
        "their cold start ÷ ours",
        "their RSS ÷ ours",
        "their 1 MB time ÷ ours (ours: a link)",
    ]
    return [
        f"## {OURS} against each peer (all columns: above 1 means {OURS} is better)",
        "",
        *table(head, rows),
    ]


def _load(d: dict[str, Any]) -> list[str]:
    rows = []
    for name in names(d):
        probe = d.get("probe", {}).get(name, {})
        row = [name]
        for k in d["settings"]["conc_list"]:
            row += [
                _n(stats.median(d, name, k, "rps")),
                _n(stats.median(d, name, k, "cpu_us_per_req")),
                _n(_ms(stats.median(d, name, k, "p50_us")), 2),
                _n(_ms(stats.median(d, name, k, "p99_us")), 2),
            ]
        wrong = sum(
            c.get("wrong", 0) + sum(c.get("errors", {}).values())
            for cs in d.get("load", {}).get(name, {}).values()
            for c in cs
        )
        ovf = sum(c.get("listen_overflows", 0) for cs in d.get("load", {}).get(name, {}).values() for c in cs)
        row += [
            probe.get("content_type", "?") + ("" if probe.get("keep_alive", True) else ", closes"),
            str(wrong),
            str(ovf),
        ]
        rows.append(row)
    head = ["server"]
    for k in d["settings"]["conc_list"]:
        head += [f"c={k} req/s", f"c={k} CPU µs/req", f"c={k} p50 ms", f"c={k} p99 ms"]
    head += ["answer", "bad/err", "listen ovf"]
    return [
        "## tools/call `add(1.5, 2.25)`: throughput, server CPU, latency (medians over rounds)",
        "",
        "CPU µs/req = user+system CPU of the server process tree during the cell ÷ requests answered. "
        "'bad/err' counts non-200 answers, answers without `3.75`, and socket errors over all cells; "
        "'listen ovf' the host's ListenOverflows during the cells.",
        "",
        *table(head, rows),
    ]


def _ms(us: float | None) -> float | None:
    return None if us is None else us / 1000


def _memory(d: dict[str, Any]) -> list[str]:
    rows = []
    for name in names(d):
        key = stats.process_of(d, name)
        cs = d.get("coldstart", {}).get(key, {})
        rows.append(
            [
                name,
                _n(cs.get("median_ms"), 0),
                " ".join(_n(x) for x in cs.get("runs_ms", [])),
                _n((d.get("rss_idle_kib", {}).get(key) or 0) / 1024, 1),
                _n((d.get("rss_after_load_kib", {}).get(key) or 0) / 1024, 1),
                f"{d.get('threads_idle', {}).get(key, '-')} / {d.get('threads_after_load', {}).get(key, '-')}",
            ]
        )
    return [
        "## Cold start (spawn → first initialize answered) and memory",
        "",
        *table(
            [
                "server",
                "cold start ms (median)",
                "runs ms",
                "RSS idle MiB",
                "RSS after load MiB",
                "threads idle / after load",
            ],
            rows,
        ),
    ]


def _big(d: dict[str, Any]) -> list[str]:
    rows = []
    for name in names(d, "big"):
        runs = d["big"][name]
        first = runs[0] if runs else {}
        # a link in place of the data (ours by default); a run file before "holds" was recorded: a guess from the
        # answer's size, and its "ok" counted a link as a wrong answer
        holds = first.get("holds") or ("a link?" if first.get("body_bytes", 0) < first.get("n", 0) // 2 else "the data")
        rows.append(
            [
                name,
                _n(stats.big(d, name), 2),
                _r(stats.big_ratio(d, name, CEILING)),
                _n(stats.big(d, name, "cpu_ms_per_call"), 2),
                _n(first.get("wire_bytes")),
                _n(first.get("text_copies"), 2),
                first.get("content_type", "?"),
                holds,
                str(all(r.get("ok") for r in runs)),
            ]
        )
    return [
        "## A 1 MB tool result (`big(n)`, sequential calls on one connection)",
        "",
        *table(
            [
                "server",
                "ms/call",
                "÷ ceiling",
                "server CPU ms/call",
                "bytes on the wire",
                "text copies",
                "answer",
                "the answer holds",
                "ok",
            ],
            rows,
        ),
        "",
        "nanohubmcp answers a result over `max_inline_bytes` (default 256 KiB) with a summary and a `resource_link`"
        " the client reads when it wants the data, so its row times that answer, not 1 MB on the wire; the same"
        " data inline is measured under 'Scientific results' (the array and table rows). 'a link?': a run"
        " recorded before the answer's kind was (its 'ok' counted a link as a wrong answer).",
    ]


def _streams(d: dict[str, Any]) -> list[str]:
    if "streams" not in d:
        return []
    rows = []
    for name in names(d, "streams"):
        s = d["streams"][name]
        if "error" in s:
            rows.append([name, s["error"]] + ["-"] * 10)
            continue
        rows.append(
            [
                name,
                f"{s['opened']}/{s['requested']}",
                _n(s["open_s"], 2),
                _n(s["rss_before_kib"] / 1024, 1),
                _n(s["rss_held_kib"] / 1024, 1),
                _n(s["kib_per_stream"], 1),
                _n(s["kib_per_stream_only"], 1),
                f"{s['threads_before']}→{s['threads_held']}",
                f"{s['calls_ok']}/{s['calls_tried']}",
                f"{s['call_p50_ms']} / {s['call_p99_ms']}",
                f"{s.get('idle_call_p50_ms', '-')} / {s.get('idle_call_p99_ms', '-')}",
                str(s.get("alive_after")),
            ]
        )
    return [
        "## Held GET streams (each its own session) while `add` keeps being called",
        "",
        "KiB/stream = (RSS held - RSS before the sessions) ÷ streams; 'stream only' leaves out the sessions' "
        "memory. Each server runs alone for this test. 'idle' = the same call loop just before, no stream held.",
        "",
        *table(
            [
                "server",
                "open",
                "open s",
                "RSS before MiB",
                "RSS held MiB",
                "KiB/stream",
                "stream only",
                "threads",
                "calls ok",
                "call p50 / p99 ms",
                "idle p50 / p99 ms",
                "alive after",
            ],
            rows,
        ),
    ]


def _kernel(d: dict[str, Any]) -> list[str]:
    k = d.get("kernel")
    if not k:
        return []
    if "error" in k:
        return ["## Ping latency in a Jupyter kernel", "", f"Not measured: {k['error']}", ""]
    rows = []
    for mode, res in k.items():
        for phase in ("idle", "busy"):
            p = res.get(phase, {})
            rows.append(
                [
                    mode,
                    phase,
                    str(p.get("pings", "-")),
                    _n(p.get("p50_ms"), 2),
                    _n(p.get("p99_ms"), 2),
                    _n(p.get("max_ms"), 2),
                    str(p.get("failed", res.get("error", "-"))),
                ]
            )
    how = next((r.get("started_by") for r in k.values() if r.get("started_by")), "?")
    return [
        "## Ping latency in a Jupyter kernel (`bench/kernel_ping.py`)",
        "",
        f"A real ipykernel; the server is started by {how}, in thread mode (its own loop in a daemon "
        "thread) or kernel mode (the kernel's loop). MCP `ping` every 10 ms on one connection, first with "
        "the kernel idle, then while a cell loops over integer arithmetic. In kernel mode the server "
        "shares the kernel's loop, so a busy cell holds every request until it ends (by design: that "
        "mode answers between cells and during `await`).",
        "",
        *table(["mode", "kernel", "pings", "p50 ms", "p99 ms", "max ms", "failed"], rows, "llrrrrr"),
    ]


def _commands(d: dict[str, Any]) -> list[str]:
    rows = [[k, f"`{' '.join(v['argv'])}`", str(v["port"])] for k, v in d["processes"].items()]
    return [
        "## Exact commands",
        "",
        "Servers (cwd `bench/`, each started as `taskset -c <server cpu> <argv>` in its own process group):",
        "",
        *table(["key", "argv", "port"], rows, "lll"),
        "Load: `wrk -t1 -c<c> -d<duration>s --timeout 10s -s lua/call.lua http://127.0.0.1:<port>/mcp`, body "
        '`{"jsonrpc":"2.0","id":<fresh>,"method":"tools/call","params":{"name":"add",'
        '"arguments":{"a":1.5,"b":2.25}}}` with `Mcp-Session-Id`, `MCP-Protocol-Version: 2025-11-25` '
        "and the entry's `Accept` header; one `initialize` + `notifications/initialized` per entry first. "
        "2026-07-28 era entries send no `initialize` and no session: `params._meta` carries "
        '`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}` '
        "and the headers `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method: tools/call`, `Mcp-Name: add`. "
        "Bearer token entries add `Authorization: Bearer bench-token` (server started with `--token`).",
        "",
    ]


def render(d: dict[str, Any], raw: Path) -> str:
    lines = _header(d, raw)
    lines += [
        "## Targets (issue 28)",
        "",
        "Ratios in this run (medians over interleaved rounds; instructions counted by valgrind where shown, "
        "and then they decide the verdict of the feature rows and of cold start). A miss names what bounds it; "
        "the profiles behind each are in findings.md.",
        "",
        *table(["target", "measured", "verdict", "bound by"], [list(r) for r in targets.rows(d)], "llll"),
    ]
    lines += (
        _ratios(d)
        + _versus(d)
        + _load(d)
        + _memory(d)
        + _big(d)
        + _streams(d)
        + report_more.render(d)
        + report_more.render_round3(d)
        + _kernel(d)
        + _commands(d)
    )
    notes = [f"- **{n}**: {d['entries'][n]['note']}" for n in names(d) if d["entries"][n].get("note")]
    if notes:
        lines += ["## Entries", "", *notes, ""]
    return "\n".join(lines).rstrip() + "\n"


def _state_dir(path: str | None) -> str:
    """How the run's state directory reads in the header (records and cache start empty, or not)."""
    if path is None:
        return "the per-user default, kept across runs (runs before 2026-12-07)"
    if "mcpbench-state-" in path:
        return "a fresh temporary one (empty records and cache)"
    return f"`{path}` (given)"
