"""The targets of issue 9, checked against one run: each row is (target, measured, verdict).

Verdicts: "met", "MISSED (by ...)", or "n/a" when the run did not measure it.
"""

from __future__ import annotations

from typing import Any

from . import stats
from .matrix import CEILING, OURS

SSE_FRAMED = "nanohubmcp, progress, SSE-framed"
JSON_FRAMED = "nanohubmcp, progress, Accept json only"
JSON_ONLY = "nanohubmcp, Accept json only"
LEGACY = "nanohub-mcp 0.4.7"
SDK_JSON = "mcp SDK (json_response)"


def _x(v: float | None, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}x"


def _verdict(ok: bool | None, miss: str = "") -> str:
    if ok is None:
        return "n/a"
    return "met" if ok else f"MISSED{(' (' + miss + ')') if miss else ''}"


def rows(d: dict[str, Any]) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    rps = stats.ratio(d, OURS, CEILING, 16, "rps")
    cpu = stats.ratio(d, OURS, CEILING, 16, "cpu_us_per_req")
    out.append(
        (
            "tools/call c=16 (JSON, session): ≥ 0.70x the ceiling's req/s",
            _x(rps and rps[0]) + (f" (rounds {rps[1]:.2f}-{rps[2]:.2f})" if rps else ""),
            _verdict(rps and rps[0] >= 0.70, rps and f"{(0.70 - rps[0]) / 0.70:.0%} short"),
        )
    )
    out.append(
        (
            "server CPU per request c=16 ≤ 1.4x the ceiling's",
            _x(cpu and cpu[0]),
            _verdict(cpu and cpu[0] <= 1.4, cpu and f"{cpu[0] / 1.4 - 1:.0%} over"),
        )
    )
    for peer, want in ((LEGACY, 1.5), (SDK_JSON, 3.5)):
        if peer not in d.get("entries", {}):
            continue
        r = stats.ratio(d, OURS, peer, 16, "rps")
        out.append(
            (
                f"req/s c=16 vs {peer}: ≈ {want}x or more",
                _x(r and r[0]),
                _verdict(r and r[0] >= want, r and f"{r[0]:.2f}x < {want}x"),
            )
        )
    sse = stats.ratio(d, SSE_FRAMED, JSON_FRAMED, 16, "cpu_us_per_req")
    out.append(
        (
            "SSE-framed answer within 1.2x of JSON (CPU/req, same call with progress)",
            _x(sse and sse[0]),
            _verdict(sse and sse[0] <= 1.2, sse and f"{sse[0] / 1.2 - 1:.0%} over"),
        )
    )
    acc = stats.ratio(d, OURS, JSON_ONLY, 16, "cpu_us_per_req")
    out.append(
        (
            "Accept json+SSE vs json only, plain add (CPU/req; both answered as JSON)",
            _x(acc and acc[0]),
            _verdict(acc and acc[0] <= 1.2, acc and f"{acc[0] / 1.2 - 1:.0%} over"),
        )
    )
    p99 = stats.ratio(d, OURS, CEILING, 64, "p99_us")
    out.append(
        (
            "p99 at c=64 ≤ 2x the ceiling's",
            _x(p99 and p99[0]),
            _verdict(p99 and p99[0] <= 2.0, p99 and f"{p99[0] / 2 - 1:.0%} over"),
        )
    )
    if LEGACY in d.get("entries", {}):
        cs = stats.div(stats.cold(d, OURS), stats.cold(d, LEGACY))
        out.append(
            (
                "cold start ≤ 1.5x the earlier package's",
                _x(cs),
                _verdict(None if cs is None else cs <= 1.5, cs and f"{cs / 1.5 - 1:.0%} over"),
            )
        )
        rs = stats.div(stats.rss(d, OURS), stats.rss(d, LEGACY))
        out.append(
            (
                "idle RSS ≤ 1.5x the earlier package's",
                _x(rs),
                _verdict(None if rs is None else rs <= 1.5, rs and f"{rs / 1.5 - 1:.0%} over"),
            )
        )
    s = d.get("streams", {}).get(OURS)
    if s and "kib_per_stream" in s:
        grew = (s.get("threads_held") or 0) - (s.get("threads_before") or 0)
        ok = (
            s["kib_per_stream"] <= 20
            and grew < 10
            and s["opened"] == s["requested"]
            and s["calls_ok"] > 0
            and s["calls_ok"] == s["calls_tried"]
        )
        out.append(
            (
                f"{s['requested']} held GET streams: ≤ 20 KiB each, no thread per stream, calls answered",
                f"{s['kib_per_stream']} KiB/stream (session included), {s['opened']}/{s['requested']} open, "
                f"threads {s['threads_before']}→{s['threads_held']}, "
                f"calls {s['calls_ok']}/{s['calls_tried']} ok "
                f"(p50 {s['call_p50_ms']} ms)",
                _verdict(ok),
            )
        )
    b = stats.big_ratio(d, OURS, CEILING)
    copies = (d.get("big", {}).get(OURS) or [{}])[0].get("text_copies")
    if b is not None:
        out.append(
            (
                "1 MB tool result ≤ 1.5x the ceiling's time per call; text sent once",
                f"{_x(b)}, text copies in the body: {copies}",
                _verdict(b <= 1.5 and (copies or 0) < 1.5, f"{b / 1.5 - 1:.0%} over" if b > 1.5 else ""),
            )
        )
    k = d.get("kernel", {}).get("thread", {})
    if "busy" in k:
        p = k["busy"]["p99_ms"]
        out.append(
            (
                "thread mode in a kernel: ping p99 < 20 ms while a cell runs pure-Python work",
                f"{p} ms (p50 {k['busy']['p50_ms']} ms, {k['busy']['pings']} pings)",
                _verdict(p is not None and p < 20, p and f"{p - 20:.1f} ms over"),
            )
        )
    return out
