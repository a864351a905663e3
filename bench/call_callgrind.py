#!/usr/bin/env python3
"""C functions' own instructions per warm call of a bench server, counted by callgrind: ours or the ceiling.

    PYTHONPATH=<checkout> .venv/bin/python bench/call_callgrind.py                        # ours (defaults)
    PYTHONPATH=<checkout> .venv/bin/python bench/call_callgrind.py --entry "bare Tornado (ceiling)"
    .venv/bin/python bench/call_callgrind.py --compare OURS_DIR CEILING_DIR                 # ours - ceiling

The server of a ``bench/mcpbench/matrix.py`` entry runs as ``mcpbench.instructions`` runs it (the same
environment: distributions read first, the inline lane pinned, full provenance batches, an empty state
directory, ``PYTHONHASHSEED=0``), but under ``valgrind --tool=callgrind``, twice: 236 and 492 calls after the
warm-up (``instructions.CALLS``). ``callgrind_annotate`` of each run, per function, the difference ÷ 256: what
one call costs in each C function of the interpreter, its libraries and the kernel's C library. The Python
tools (``call_opcodes.py``) see opcodes; this sees what they do not: memory zeroed or copied, the codec, the
regex engine, SQLite on the writer thread.

Callgrind counts a ``rep``-prefixed instruction once per iteration (a ``rep stosb`` zeroing 64 KiB: 65,536),
exp-bbv (``mcpbench.instructions``, the figures of ``bench/results.md``) once: so the totals differ (by ~100k a
call before ``http_server.FIRST_READ_BYTES``, all of it the zero-filled read buffers). The same code counted
twice differs by a few thousand a call. Not a test: nothing asserts a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from mcpbench import env, matrix, mcp, procs  # noqa: E402
from mcpbench import instructions as counted  # noqa: E402
from mcpbench.http import Connection  # noqa: E402


async def run(entry: matrix.Entry, calls: int, out: Path) -> None:
    """One callgrind run of ``entry``'s server answering ``calls`` calls after the warm-up, into ``out``."""
    process = matrix.process(entry.process)
    python = {"ours": sys.executable, "peers": sys.executable, "ceiling": sys.executable}
    with tempfile.TemporaryDirectory() as tmp:
        tool = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", f"--log-file={tmp}/valgrind.log"]
        argv = ["env", "PYTHONHASHSEED=0", "BENCH_READ_DISTRIBUTIONS=1", counted.NATIVE_PATH,
                f"NANOHUBMCP_STATE_DIR={tmp}/state", *tool, *process.argv(python)]
        server = procs.ServerProcess(argv, env.BENCH, None)
        server.start()
        try:
            if await mcp.wait_ready(counted.HOST, process.port, 600, token=process.token) is None:
                raise RuntimeError("the server did not start")
            conn = Connection(counted.HOST, process.port)
            session = (await mcp.open_session(conn, timeout=600, token=entry.token)
                       if entry.era == mcp.PROTOCOL else None)
            for _ in range(counted.WARMUP + calls):
                reply = await mcp.call(conn, entry, session, timeout=600)
                if reply.status != 200:
                    raise RuntimeError(f"a call answered {reply.status}")
            await conn.close()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                await asyncio.to_thread(server.proc.wait, 300)  # type: ignore[union-attr]
            server.stop()


def functions(path: Path) -> tuple[int, dict[str, int]]:
    """Program total and each function's own instructions (``callgrind_annotate``)."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", "--inclusive=no", str(path)],
                          capture_output=True, text=True, check=True).stdout
    total, own = 0, {}
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$", line)
        if not match:
            continue
        count, name = int(match.group(1).replace(",", "")), match.group(2).strip()
        if "PROGRAM TOTALS" in name:
            total = count
            continue
        name = re.sub(r"^.*/Python-3\.\d+\.\d+/", "", name.split(" [")[0])  # the path inside CPython's build tree
        own[name] = own.get(name, 0) + count
    return total, own


def per_call(folder: Path) -> tuple[float, dict[str, float]]:
    low, high = counted.CALLS
    low_total, low_own = functions(folder / f"callgrind.{low}")
    high_total, high_own = functions(folder / f"callgrind.{high}")
    calls = high - low
    return (high_total - low_total) / calls, {
        name: (high_own.get(name, 0) - low_own.get(name, 0)) / calls for name in low_own.keys() | high_own.keys()}


def show(total: float, own: dict[str, float], top: int, title: str) -> None:
    print(f"{title}: {total:,.0f} instructions a call")
    for name, count in sorted(own.items(), key=lambda item: -abs(item[1]))[:top]:
        print(f"{count:12,.0f}  {name[:130]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entry", default=matrix.OURS, help="a bench/mcpbench/matrix.py entry's name")
    ap.add_argument("--keep", type=Path, help="keep the two callgrind files in this folder (for --compare)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="two --keep folders: A - B a call")
    args = ap.parse_args()
    if args.compare:
        (a_total, a_own), (b_total, b_own) = per_call(args.compare[0]), per_call(args.compare[1])
        show(a_total - b_total, {k: a_own.get(k, 0) - b_own.get(k, 0) for k in a_own.keys() | b_own.keys()},
             args.top, f"{args.compare[0]} - {args.compare[1]}")
        return
    entry = {e.name: e for e in matrix.ENTRIES}[args.entry]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for calls in counted.CALLS:
            asyncio.run(run(entry, calls, folder / f"callgrind.{calls}"))
        show(*per_call(folder), args.top, args.entry)


if __name__ == "__main__":
    main()
