"""Figures derived from one run's raw data: medians over rounds and per-round ratios.

A ratio between two servers is taken inside each round (both measured minutes apart under the
same neighbours' load), then the median over rounds is kept, with the min-max spread.
"""

from __future__ import annotations

import statistics
from typing import Any

Data = dict[str, Any]


def cells(data: Data, name: str, conc: int) -> list[dict[str, Any]]:
    return list(data.get("load", {}).get(name, {}).get(str(conc), []))


def median(data: Data, name: str, conc: int, key: str) -> float | None:
    values = [c[key] for c in cells(data, name, conc) if c.get(key) is not None]
    return statistics.median(values) if values else None


def ratio(data: Data, num: str, den: str, conc: int, key: str) -> tuple[float, float, float] | None:
    """(median, min, max) over rounds of ``num[key] / den[key]``; None without common rounds."""
    by_round = {c["round"]: c.get(key) for c in cells(data, den, conc)}
    values = [
        c[key] / by_round[c["round"]]
        for c in cells(data, num, conc)
        if c.get(key) and by_round.get(c["round"])
    ]
    return (statistics.median(values), min(values), max(values)) if values else None


def big(data: Data, name: str, key: str = "median_ms") -> float | None:
    values = [r[key] for r in data.get("big", {}).get(name, []) if r.get(key) is not None]
    return statistics.median(values) if values else None


def big_ratio(data: Data, num: str, den: str) -> float | None:
    a, b = data.get("big", {}).get(num, []), data.get("big", {}).get(den, [])
    values = [
        x["median_ms"] / y["median_ms"]
        for x, y in zip(a, b, strict=False)
        if x.get("median_ms") and y.get("median_ms")
    ]
    return statistics.median(values) if values else None


def process_of(data: Data, name: str) -> str:
    return str(data["entries"][name]["process"])


def cold(data: Data, name: str) -> float | None:
    return data.get("coldstart", {}).get(process_of(data, name), {}).get("median_ms")


def cold_ratio(data: Data, num: str, den: str) -> tuple[float, float, float] | None:
    """(median, min, max) over the interleaved cold-start rounds of ``num``'s run ÷ ``den``'s run of the same
    round, as every other ratio of the run is taken; None without runs of both."""
    starts = data.get("coldstart", {})
    a = starts.get(process_of(data, num), {}).get("runs_ms") or []
    b = starts.get(process_of(data, den), {}).get("runs_ms") or []
    values = [x / y for x, y in zip(a, b, strict=False) if x and y]
    return (statistics.median(values), min(values), max(values)) if values else None


def rss(data: Data, name: str, key: str = "rss_idle_kib") -> int | None:
    return data.get(key, {}).get(process_of(data, name))


def div(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None
