#!/usr/bin/env python3
"""Instructions (callgrind) of one inline array/table result against its plain-library baseline.

    .venv/bin/python bench/science_instructions.py --before /tmp/main-checkout [--rows 30000 --floats 100000]

Load-independent companion of ``science_results.py``: each case runs in a fresh process under
``valgrind --tool=callgrind``, once with only the set-up (data made, modules imported, one warm-up
call of a small value) and once with the set-up plus one call of the case; the difference is the
case's instructions. Variants: the ``--before`` checkout, this checkout with orjson (the ``fast``
extra) and without it. Smaller sizes than ``science_results.py`` by default (valgrind runs ~50x
slower); the ratios are per byte of data, so they carry over.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys
import numpy as np, pandas as pd
from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.results import shape
from nanohubmcp.server.results.sink import ResultSink
try:
    from nanohubmcp.server.results.options import ResultOptions
except ImportError:  # a --before checkout older than results/options.py
    from nanohubmcp.server.results.store import ResultOptions
case, rows, floats, accelerated = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "on"
try:
    from nanohubmcp.protocol.accelerator import use_accelerator
except ImportError:  # a --before checkout where jsonenc held the switch (or before the fast extra)
    use_accelerator = getattr(jsonenc, "use_accelerator", lambda enabled: False)
if not accelerated:
    use_accelerator(False)
a = np.random.default_rng(0).standard_normal(floats)
rng = np.random.default_rng(1)
df = pd.DataFrame({"t": np.arange(rows) * 1e-3, "x": rng.standard_normal(rows), "step": np.arange(rows, dtype=np.int64),
                   "label": np.where(np.arange(rows) % 2 == 0, "even", "odd")})
inline = ResultSink(ResultOptions(max_inline_bytes=None))
def wire(value):  # as the transports send a response: the encoder's parts (science_results.py's wire)
    message = {"jsonrpc": "2.0", "id": 1, "result": shape.tool_result(value, sink=inline)}
    return jsonenc.dumpb_parts(message) if hasattr(jsonenc, "dumpb_parts") else jsonenc.dumpb(message)
wire(a[:10]); wire(df.head(10)); json.dumps(a[:10].tolist()); df.head(10).to_json(orient="records")  # warm
if case == "array-baseline":
    json.dumps(a.tolist())
elif case == "array-inline":
    wire(a)
elif case == "frame-baseline":
    df.to_json(orient="records")
elif case == "frame-inline":
    wire(df)
"""


def instructions(path: str, case: str, rows: int, floats: int, accelerated: bool) -> int:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "child.py"
        script.write_text(CHILD)
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        if path:
            env["PYTHONPATH"] = path
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder}/out", sys.executable, str(script),
             case, str(rows), str(floats), "on" if accelerated else "off"],
            env=env, capture_output=True, text=True, check=True, cwd=folder,
        )
    found = re.search(r"Collected : (\d+)", done.stderr)
    assert found, done.stderr[-2000:]
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code to compare with")
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--floats", type=int, default=100_000)
    args = parser.parse_args()
    variants = {"before": (str(args.before.resolve()), False), "after, orjson": ("", True),
                "after, no orjson": ("", False)}
    print(f"instructions of one call ({args.floats:,} floats, {args.rows:,}-row table), ratio to the baseline")
    for kind in ("array", "frame"):
        base = instructions("", f"{kind}-baseline", args.rows, args.floats, False) - instructions(
            "", "setup", args.rows, args.floats, False)
        print(f"{kind} baseline: {base:,}")
        for name, (path, accelerated) in variants.items():
            setup = instructions(path, "setup", args.rows, args.floats, accelerated)
            total = instructions(path, f"{kind}-inline", args.rows, args.floats, accelerated)
            print(f"  {kind} inline, {name:<17} {total - setup:>15,}  {(total - setup) / base:6.2f}x")


if __name__ == "__main__":
    main()
