"""The targets of issue 19, checked against one run: each row is (target, measured, verdict).

Verdicts: "met", "MISSED (by ...)", or "n/a" when the run did not measure it.
"""

from __future__ import annotations

from typing import Any

from . import stats
from .matrix import CEILING, OURS, OURS_MODERN, OURS_TOKEN

LEGACY = "nanohub-mcp 0.4.7"


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


def _http(d: dict[str, Any]) -> list[tuple[str, str, str]]:
    rps = stats.ratio(d, OURS, CEILING, 16, "rps")
    cpu = stats.ratio(d, OURS, CEILING, 16, "cpu_us_per_req")
    era = stats.ratio(d, OURS_MODERN, OURS, 16, "cpu_us_per_req")
    tok = stats.ratio(d, OURS_TOKEN, OURS, 16, "cpu_us_per_req")
    tok_rps = stats.ratio(d, OURS, OURS_TOKEN, 16, "rps")
    return [
        ("c=16 handshake era ≥ 0.80x the ceiling's req/s", _spread(rps), _at_least(rps and rps[0], 0.80)),
        ("c=16 handshake era ≤ 1.25x the ceiling's CPU per call", _spread(cpu), _at_most(cpu and cpu[0], 1.25)),
        (
            "2026-07-28 era within 1.15x of the handshake era's CPU per call (c=16)",
            _spread(era),
            _at_most(era and era[0], 1.15),
        ),
        (
            "a token check adds ≤ 5% (CPU per call, c=16; req/s lost in brackets)",
            f"{_spread(tok)} [req/s {_spread(tok_rps)}]",
            _at_most(tok and tok[0], 1.05),
        ),
    ]


def _cold(d: dict[str, Any]) -> list[tuple[str, str, str]]:
    if LEGACY not in d.get("entries", {}):
        return []
    ours, legacy = stats.cold(d, OURS), stats.cold(d, LEGACY)
    cs = stats.div(ours, legacy)
    shown = f"{_x(cs)} ({ours:.0f} ms vs {legacy:.0f} ms)" if cs else "-"
    return [("cold start ≤ 1.3x the 0.4.x package's", shown, _at_most(cs, 1.3))]


def _stdio(d: dict[str, Any]) -> list[tuple[str, str, str]]:
    s = d.get("stdio") or {}
    r = (s.get("ours_over") or {}).get("mcp SDK")
    if r is None:
        return []
    med = s["median"]
    shown = f"{_x(r)} ({med['nanohubmcp']:,.0f} vs {med['mcp SDK']:,.0f} calls/s)"
    return [("stdio ≥ 2x the official SDK's round trips per second", shown, _at_least(r, 2.0))]


def _science(d: dict[str, Any]) -> list[tuple[str, str, str]]:
    rows = (d.get("science") or {}).get("rows")
    if not rows:
        return []
    out = []
    for row in rows:
        case = row["case"]
        if case.startswith("nanohubmcp:") and ("inline" in case or "image block" in case):
            default = next(
                (r for r in rows if r["value"] == row["value"] and "resource_link (default)" in r["case"]), None
            )
            also = f"; default summary + link: {default['ratio']:.2f}x, {default['bytes']:,} bytes" if default else ""
            out.append(
                (
                    f"{row['value']} ≤ 1.2x the plain-library baseline (time per call, all data in the answer)",
                    f"{row['ratio']:.2f}x, {row['bytes']:,} bytes{also}",
                    _at_most(row["ratio"], 1.2),
                )
            )
    copies = d["science"].get("figure_png_copies")
    out.append(
        (
            "a figure's PNG is sent once, with no base64 text copy",
            f"{copies} copy; blocks {d['science'].get('figure_blocks')}",
            _verdict(copies == 1),
        )
    )
    return out


def _dask(d: dict[str, Any]) -> list[tuple[str, str, str]]:
    k = (d.get("jobs") or {}).get("dask_ms")
    if not k:
        return []
    r = k["executor_p50"] / k["client_submit_p50"]
    shown = f"{_x(r)} ({k['executor_p50']:.1f} ms vs {k['client_submit_p50']:.1f} ms, p50)"
    return [("Dask dispatch ≤ 2x Dask's own client.submit(f).result()", shown, _at_most(r, 2.0))]


def _held(d: dict[str, Any]) -> list[tuple[str, str, str]]:
    s = d.get("streams", {}).get(OURS)
    if not s or "kib_per_stream" not in s:
        return []
    n = s["requested"]
    grew = (s.get("threads_held") or 0) - (s.get("threads_before") or 0)
    p99, idle = s.get("call_p99_ms"), s.get("idle_call_p99_ms")
    slow = stats.div(p99, idle)
    all_open = s["opened"] == n and s["calls_ok"] == s["calls_tried"] > 0
    return [
        (
            f"{n:,} held sessions ≤ 25 KiB each",
            f"{s['kib_per_stream']} KiB (session + GET stream), {s['opened']:,}/{n:,} open",
            _verdict(s["kib_per_stream"] <= 25 and all_open, f"{s['kib_per_stream'] / 25 - 1:.0%} over"),
        ),
        (
            f"{n:,} held sessions: one thread (none per session)",
            f"threads {s['threads_before']}→{s['threads_held']}",
            _verdict(grew < 4),
        ),
        (
            f"{n:,} held sessions: p99 of calls meanwhile ≤ 3x idle",
            f"{_x(slow)} ({p99} ms vs {idle} ms idle; {s['calls_ok']}/{s['calls_tried']} calls ok)",
            _at_most(slow, 3.0),
        ),
    ]


def rows(d: dict[str, Any]) -> list[tuple[str, str, str]]:
    return _http(d) + _cold(d) + _stdio(d) + _science(d) + _dask(d) + _held(d)
