"""Peak memory of a tool call whose numpy array is too large to inline (kept as a resource, or refused).

    .venv/bin/python bench/kept_peak.py                      # 1e7 and 5e7 floats, state dir and memory store
    .venv/bin/python bench/kept_peak.py --sizes 1e7,1e8 --stores sqlite

Each measurement runs in a fresh process: an ``MCPServer`` (``max_inline_bytes`` and the kept limits at their
defaults) with one tool returning ``np.linspace(0, 1, n)``, called once through the in-memory client
(``nanohubmcp.testing``: the whole call path, no sockets) after a small warm-up call. The figures are the
process's RSS before the call and its peak (``ru_maxrss``) over the call; "over the array" is the peak less
the idle RSS and the array's own ``n * 8`` bytes, the memory the call's result handling took.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_kb() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def one(n: int, store: str) -> dict[str, object]:
    """Measure one call in this process (run by the parent in a fresh one)."""
    import numpy as np

    from nanohubmcp import MCPServer
    from nanohubmcp.testing import in_memory

    with tempfile.TemporaryDirectory() as state:
        server = MCPServer("kept-peak", state_dir=state, job_store=store)

        @server.tool()
        def lin(n: int) -> object:
            """n values from 0 to 1."""
            return np.linspace(0, 1, n)

        with in_memory(server, timeout=600) as client:
            client.call_tool("lin", {"n": 100_000})  # imports, first uses, a first kept result
            idle = rss_kb()
            start = time.perf_counter()
            result = client.call_tool("lin", {"n": n})
            seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        link = next((b for b in result["content"] if b.get("type") == "resource_link"), None)
        outcome = f"kept, {link['size']:,} bytes" if link else "refused: " + result["content"][0]["text"][:90]
        return {"n": n, "store": store, "idle_kb": idle, "peak_kb": peak, "seconds": round(seconds, 2),
                "over_array_mb": round((peak - idle) / 1024 - n * 8 / 2**20), "outcome": outcome}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e7,5e7", help="array sizes, comma-separated (floats)")
    parser.add_argument("--stores", default="sqlite,memory", help="job_store values to measure")
    parser.add_argument("--one", nargs=2, metavar=("N", "STORE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(int(float(args.one[0])), args.one[1])))
        return
    env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE)}
    print("| n | store | idle RSS | peak RSS | peak - idle | over the array | call | outcome |")
    print("|---|---|---|---|---|---|---|---|")
    for store in args.stores.split(","):
        for size in args.sizes.split(","):
            out = subprocess.run([sys.executable, __file__, "--one", size, store], env=env, check=True,
                                 capture_output=True, text=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            idle, peak = int(r["idle_kb"]) / 2**20, int(r["peak_kb"]) / 2**20
            print(f"| {float(size):.0e} | {store} | {idle:.2f} GB | {peak:.2f} GB | {peak - idle:.2f} GB | "
                  f"{r['over_array_mb']} MB | {r['seconds']} s | {r['outcome']} |", flush=True)


if __name__ == "__main__":
    main()
