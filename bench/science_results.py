#!/usr/bin/env python3
"""Price of turning scientific results into MCP content, against the plain library calls.

    .venv/bin/python bench/science_results.py            # 7 repeats, median
    .venv/bin/python bench/science_results.py --repeats 15 --json /tmp/science.json
    .venv/bin/python bench/science_results.py --no-accelerator   # without orjson (the fast extra)
    .venv/bin/python bench/science_results.py --cpu    # CPU time, not wall (a loaded host)
    .venv/bin/python bench/science_results.py --compare /tmp/main-checkout --rounds 3
        # before (that checkout) and after (this one, with and without orjson), interleaved rounds

Measured in one process (not a timed test):

- a 1e6-float ``ndarray`` result: ``results.tool_result`` inline (no ``max_inline_bytes``), the same
  plus the JSON-RPC response bytes the transport writes, and the default (offloaded: summary +
  ``resource_link``), each against ``json.dumps(a.tolist())``;
- a 300,000-row ``DataFrame`` (a float, an int and a short text column): the same three ways,
  against ``df.to_json(orient="records")``;
- a 640x480 matplotlib figure: ``results.tool_result`` against ``fig.savefig(BytesIO(), format="png")``
  (a fresh figure for every run of both, drawn once either way);
- what a peer's user writes by hand for the same result (the official SDK and fastmcp take a
  ``str`` or an ``Image``, not an array, table or figure): the baseline call, returned as text,
  which those servers send twice (``content[0].text`` and ``structuredContent.result``, as the
  HTTP benchmark's 1 MB result shows), or the PNG base64-encoded into an image block. The peer's
  result is built and encoded here with ``json.dumps`` (not their pydantic encoder), so its time
  is the user's code plus an encoder of about our cost, and its bytes are exact.

Prints seconds, the ratio to the baseline and the bytes on the wire.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.results import shape as results
from nanohubmcp.server.results.sink import ResultSink
from nanohubmcp.server.results.store import ResultStore

try:
    from nanohubmcp.server.results.options import ResultOptions
except ImportError:  # a --compare checkout before results/options.py (50dd142)
    from nanohubmcp.server.results.store import ResultOptions  # type: ignore[attr-defined,no-redef]

matplotlib.use("Agg")


CLOCK: Callable[[], float] = time.perf_counter
"""What is timed: wall time, or with ``--cpu`` the process's CPU time (``time.process_time``), which a loaded
host moves far less (waiting for a core is not counted; bench/findings.md §13.4)."""


def median_time(run: Callable[[], Any], repeats: int, setup: Callable[[], Any] | None = None) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        arg = setup() if setup else None
        start = CLOCK()
        out = run(arg) if setup else run()  # type: ignore[call-arg]
        times.append(CLOCK() - start)
    return statistics.median(times), out


def figure() -> Figure:
    fig = Figure(figsize=(6.4, 4.8), dpi=100)
    ax = fig.add_subplot()
    t = np.linspace(0, 10, 500)
    ax.plot(t, np.exp(-0.3 * t) * np.cos(2 * t))
    ax.set_xlabel("t (s)")
    return fig


def frame(rows: int) -> Any:
    import pandas as pd

    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {
            "t": np.arange(rows) * 1e-3,
            "x": rng.standard_normal(rows),
            "step": np.arange(rows, dtype=np.int64),
            "label": np.where(np.arange(rows) % 2 == 0, "even", "odd"),
        }
    )


def peer_text(text: str) -> bytes:
    """A peer's answer to a ``-> str`` tool: the text in the content and in structuredContent."""
    result = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode()


def peer_png(png: bytes) -> bytes:
    """A peer's answer to a tool returning ``Image(data=png, format="png")``: one base64 image block."""
    block = {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": [block], "isError": False}}).encode()


def _accelerator_switch() -> Any:
    """``use_accelerator`` of the checkout served: ``protocol.accelerator``'s, jsonenc's before it moved,
    or None in checkouts before the fast extra."""
    try:
        from nanohubmcp.protocol.accelerator import use_accelerator
    except ImportError:
        return getattr(jsonenc, "use_accelerator", None)
    return use_accelerator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rows", type=int, default=300_000, help="DataFrame rows (default 300,000)")
    parser.add_argument("--floats", type=int, default=1_000_000, help="array length (default 1e6)")
    parser.add_argument("--json", type=Path, help="also write the rows here (JSON)")
    parser.add_argument("--no-accelerator", action="store_true", help="encode without orjson even if installed")
    parser.add_argument("--no-figure", action="store_true", help="leave the figure rows out")
    parser.add_argument("--compare", type=Path, metavar="CHECKOUT",
                        help="run before (CHECKOUT's package) and after (this one, with and without orjson) "
                        "in interleaved rounds, each in a fresh process, and print the medians")
    parser.add_argument("--rounds", type=int, default=3, help="rounds for --compare (default 3)")
    parser.add_argument("--cpu", action="store_true", help="time CPU (time.process_time), not wall: a loaded host")
    args = parser.parse_args()
    if args.cpu:
        global CLOCK
        CLOCK = time.process_time
    if args.compare:
        compare(args)
        return
    if args.no_accelerator:
        switch = _accelerator_switch()
        if switch is not None:
            switch(False)
    repeats = args.repeats
    a = np.random.default_rng(0).standard_normal(args.floats)
    df = frame(args.rows)
    inline = ResultSink(ResultOptions(max_inline_bytes=None))
    offload = ResultSink(ResultOptions(), ResultStore(ttl=60), owner="bench")

    def wire(result: dict[str, Any]) -> list[Any]:
        # The response as the HTTP transports send it (BaseHandler.send_json, and the stdio writer): the
        # encoder's parts, UTF-8, each handed to the socket as it is (the data's pre-encoded text a part of
        # its own, never joined with the rest into one body). Before 2026-12-05 this row timed dumpb, which
        # joins the parts into one text first: no transport sends a response that way (bench/findings.md §13.4).
        message = {"jsonrpc": "2.0", "id": 1, "result": result}
        parts = getattr(jsonenc, "dumpb_parts", None)  # (a --compare checkout before it: one body)
        return parts(message) if parts is not None else [jsonenc.dumpb(message)]

    rows: list[tuple[str, str, float, float, int]] = []  # (value, case, seconds, ratio, bytes)

    def data_rows(kind: str, value: Any, baseline_name: str, baseline: Callable[[], str]) -> None:
        base, text = median_time(baseline, repeats)
        rows.append((kind, f"{baseline_name}  [baseline]", base, 1.0, len(text)))
        t, body = median_time(lambda: wire(results.tool_result(value, sink=inline)), repeats)
        rows.append((kind, "nanohubmcp: value -> CallToolResult -> response bytes, inline", t, t / base, size(body)))
        t, body = median_time(lambda: wire(results.tool_result(value, sink=offload)), repeats)
        rows.append((kind, "nanohubmcp: summary + resource_link (default)", t, t / base, size(body)))
        t, body = median_time(lambda: peer_text(baseline()), repeats)
        rows.append((kind, f"peer, by hand: return {baseline_name} (sent twice)", t, t / base, len(body)))

    data_rows(f"{args.floats:,}-float array", a, "json.dumps(a.tolist())", lambda: json.dumps(a.tolist()))
    data_rows(f"{args.rows:,}-row DataFrame", df, 'df.to_json(orient="records")', lambda: df.to_json(orient="records"))

    if args.no_figure:
        _report(rows, args.json, repeats, None)
        return
    kind = "640x480 figure"
    png_base, png = median_time(lambda fig: _savefig(fig), repeats, setup=figure)
    rows.append((kind, "fig.savefig(BytesIO(), 'png')  [baseline]", png_base, 1.0, len(png)))
    t, body = median_time(lambda fig: wire(results.tool_result(fig)), repeats, setup=figure)
    rows.append((kind, "nanohubmcp: Figure -> image block -> response bytes", t, t / png_base, size(body)))
    blocks = results.tool_result(figure())["content"]
    # the PNG travels once: one image block and no text block carrying it again (e.g. as base64 text)
    copies = sum(b["type"] == "image" for b in blocks) + sum(
        b["type"] == "text" and len(b["text"]) > 1000 for b in blocks
    )
    t, body = median_time(lambda fig: peer_png(_savefig(fig)), repeats, setup=figure)
    rows.append((kind, "peer, by hand: savefig + Image(data=png)", t, t / png_base, len(body)))

    _report(rows, args.json, repeats, (png, copies, blocks))


def _report(rows: list[tuple[str, str, float, float, int]], out: Path | None, repeats: int,
            figure: tuple[bytes, int, list[dict[str, Any]]] | None) -> None:
    width = max(len(kind) + len(case) + 3 for kind, case, *_ in rows)
    print(f"{'case':<{width}}  {'seconds':>9}  {'ratio':>6}  {'bytes':>11}")
    for kind, case, seconds, ratio, size in rows:
        print(f"{kind + ' | ' + case:<{width}}  {seconds:9.4f}  {ratio:6.2f}  {size:11,d}")
    facts: dict[str, Any] = {}
    if figure is not None:
        png, copies, blocks = figure
        print(f"copies of the PNG in our figure answer: {copies} (blocks: {[b['type'] for b in blocks]})")
        kinds = [b["type"] for b in blocks]
        facts = {"figure_png_bytes": len(png), "figure_png_copies": copies, "figure_blocks": kinds}
    if out:
        listed = [
            {"value": k, "case": c, "seconds": round(sec, 5), "ratio": round(r, 3), "bytes": n}
            for k, c, sec, r, n in rows
        ]
        out.write_text(json.dumps({"repeats": repeats, "rows": listed, **facts}, indent=1))


def compare(args: argparse.Namespace) -> None:
    """Before/after in one run: each variant in a fresh process per round, variants interleaved."""
    variants = {
        f"before ({args.compare})": (str(args.compare.resolve()), []),
        "after, orjson": ("", []),
        "after, no orjson": ("", ["--no-accelerator"]),
    }
    seen: dict[str, dict[tuple[str, str], list[float]]] = {name: {} for name in variants}
    sizes: dict[tuple[str, str], int] = {}
    for _ in range(args.rounds):
        for name, (path, extra) in variants.items():
            with tempfile.NamedTemporaryFile(suffix=".json") as out:
                env = {**os.environ, "PYTHONPATH": path} if path else dict(os.environ)
                command = [sys.executable, __file__, "--no-figure", "--repeats", str(args.repeats), "--rows",
                           str(args.rows), "--floats", str(args.floats), "--json", out.name, *extra,
                           *(["--cpu"] if args.cpu else [])]
                subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, cwd=tempfile.gettempdir())
                for row in json.loads(Path(out.name).read_text())["rows"]:
                    seen[name].setdefault((row["value"], row["case"]), []).append(row["ratio"])
                    sizes[(row["value"], row["case"])] = row["bytes"]
    print(f"ratio to the baseline, median of {args.rounds} rounds (each the median of {args.repeats} repeats)")
    keys = [key for key in seen["after, orjson"] if "[baseline]" not in key[1]]
    width = max(len(v) + len(c) + 3 for v, c in keys)
    print(f"{'case':<{width}}  " + "  ".join(f"{name[:22]:>22}" for name in variants))
    for key in keys:
        cells = [statistics.median(seen[name].get(key, [float("nan")])) for name in variants]
        print(f"{key[0] + ' | ' + key[1]:<{width}}  " + "  ".join(f"{cell:22.2f}" for cell in cells))


def size(parts: list[Any]) -> int:
    """Bytes on the wire of a response's parts (:func:`jsonenc.dumpb_parts`; inline, each is bytes)."""
    return sum(len(part) for part in parts)


def _savefig(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


if __name__ == "__main__":
    main()
