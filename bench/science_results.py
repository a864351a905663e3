#!/usr/bin/env python3
"""Price of turning scientific results into MCP content, against the plain library calls.

    .venv/bin/python bench/science_results.py            # 7 repeats, median
    .venv/bin/python bench/science_results.py --repeats 15

Measured in one process (not a timed test):

- a 1e6-float ``ndarray`` result: ``results.tool_result`` inline (no ``max_inline_bytes``), the same
  plus the JSON-RPC response bytes the transport writes, and the default (offloaded: summary +
  ``resource_link``), each against ``json.dumps(a.tolist())``;
- a 640x480 matplotlib figure: ``results.tool_result`` against ``fig.savefig(BytesIO(), format="png")``
  (a fresh figure for every run of both, drawn once either way).

Prints seconds, the ratio to the baseline and the bytes on the wire.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from nanohubmcp.protocol import jsonenc
from nanohubmcp.server import results
from nanohubmcp.server.result_store import ResultOptions, ResultSink, ResultStore

matplotlib.use("Agg")


def median_time(run: Callable[[], Any], repeats: int, setup: Callable[[], Any] | None = None) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        arg = setup() if setup else None
        start = time.perf_counter()
        out = run(arg) if setup else run()  # type: ignore[call-arg]
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def figure() -> Figure:
    fig = Figure(figsize=(6.4, 4.8), dpi=100)
    ax = fig.add_subplot()
    t = np.linspace(0, 10, 500)
    ax.plot(t, np.exp(-0.3 * t) * np.cos(2 * t))
    ax.set_xlabel("t (s)")
    return fig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    repeats = parser.parse_args().repeats
    a = np.random.default_rng(0).standard_normal(1_000_000)
    inline = ResultSink(ResultOptions(max_inline_bytes=None))
    offload = ResultSink(ResultOptions(), ResultStore(ttl=60), owner="bench")

    def wire(result: dict[str, Any]) -> bytes:
        return jsonenc.dumpb({"jsonrpc": "2.0", "id": 1, "result": result})

    rows = []
    base, text = median_time(lambda: json.dumps(a.tolist()), repeats)
    rows.append(("json.dumps(a.tolist())  [baseline]", base, 1.0, len(text)))
    t, r = median_time(lambda: results.tool_result(a, sink=inline), repeats)
    rows.append(("ndarray -> CallToolResult, inline", t, t / base, len(wire(r))))
    t, body = median_time(lambda: wire(results.tool_result(a, sink=inline)), repeats)
    rows.append(("  ... + JSON-RPC response bytes", t, t / base, len(body)))
    t, r = median_time(lambda: results.tool_result(a, sink=offload), repeats)
    rows.append(("ndarray -> summary + resource_link (default)", t, t / base, len(wire(r))))

    png_base, png = median_time(lambda fig: _savefig(fig), repeats, setup=figure)
    rows.append(("fig.savefig(BytesIO(), 'png')  [baseline]", png_base, 1.0, len(png)))
    t, r = median_time(lambda fig: results.tool_result(fig), repeats, setup=figure)
    rows.append(("Figure -> image block", t, t / png_base, len(wire(r))))

    width = max(len(name) for name, *_ in rows)
    print(f"{'case':<{width}}  {'seconds':>9}  {'ratio':>6}  {'bytes':>11}")
    for name, seconds, ratio, size in rows:
        print(f"{name:<{width}}  {seconds:9.4f}  {ratio:6.2f}  {size:11,d}")


def _savefig(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


if __name__ == "__main__":
    main()
