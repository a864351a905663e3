"""CPU per call counted in instructions (valgrind), which the machine's other load does not move.

Each server runs under ``valgrind --tool=exp-bbv --instr-count-only=yes`` (valgrind's lightest
instruction counter; callgrind counts the same at several times the cost) twice: once answering
``low`` calls, once ``high`` calls, each after the same session opening and warm-up calls, one at a time on one
keep-alive connection. The difference of the two runs' instruction totals divided by
``high - low`` is the instructions one call costs the server process (all its threads: the loop,
the worker pool, the provenance writer; start-up and shut-down cancel out). Exp-bbv writes only
the main thread's total into its ``--bb-out-file``; every thread's (``# Thread N`` … ``Total
instructions:``) goes to valgrind's log, which is what is summed here (until 2026-12-02 the
file was read, so the figures left out every thread but the event loop's). The server is
stopped with SIGTERM and exits cleanly: what its threads still had to do (records waiting for
the provenance writer) is done, and counted, before valgrind writes the totals. Instructions are
counted in user space by valgrind's CPU model, so the figures are stable to a fraction of a
percent from run to run (``PYTHONHASHSEED=0`` makes both runs hash alike); they do not count
time spent waiting or in the kernel. ``BENCH_READ_DISTRIBUTIONS=1`` has our server read the installed
distributions' table (the provenance layer's one-off, ~2 G instructions under valgrind) before it
serves: left to its background thread, it fell into the longer run only (the 13:11 UTC run of
2026-12-02 read 27.9 M instructions "per call"). Each run gets an empty state directory
(``NANOHUBMCP_STATE_DIR``): until 2026-12-02 our servers kept their provenance records in the
per-user one shared by every run before (a full run's load cells leave ~100,000 records there),
and a purge of that table (~60 M instructions under the counter until 2026-12-02's fifth
provenance pass) fell into one run and not the other by the clock: up to ~750 k "per call".
``BENCH_NATIVE_PATH=1`` has our server decide what it decides by the clock as natively (:data:`NATIVE_PATH`),
and ``BENCH_LANE_REPORT`` has it say at exit where each sync tool ran (the entry's ``lanes``). The call counts
(:data:`CALLS`) are whole batches of provenance records: both runs write the same statements, and their
difference is steady batches of 256 records, as at c=16.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import env, mcp, procs
from .http import Connection
from .matrix import Entry, Process

HOST = "127.0.0.1"
WARMUP = 20
NATIVE_PATH = "BENCH_NATIVE_PATH=1"
"""Our server decides by the clock as a native run does (servers/ours.py): its worker pool keeps a quick
sync function on the event loop once it qualified (the lane a native run keeps ``add`` on), its
provenance writer writes full batches (natively a batch fills in ~0.1 s at any rate the rows stand for),
and its result cache's front reads the store again no more often than natively (once a second: natively
once per ~1,500 hits at c=16, under valgrind once per ~20; counted, ~5.8k a hit, more than a hit saves).
Under valgrind (calls ~50x slower; a switch between threads, valgrind's one lock, reads as a wait) both
followed the clock: unscaled, the lane read ~1.15 M or ~1.33 M instructions a call in runs minutes
apart; with the pool's bounds scaled by 50 (``BENCH_SLOWDOWN``, 27dcdb0) still ~1 run in 8 at ~1.29 M;
and 1 s of gathering held as many records as the host's load let through (bench/hotpath.md, "the clock
out of the instruction rows")."""
BATCH = 256
"""Records the provenance writer writes in one batch (``writer.BATCH``)."""
CALLS = (BATCH - WARMUP, 2 * BATCH - WARMUP)
"""The two runs' calls after the warm-up (236 and 492): the first run's records fill one batch (the
warm-up's pool calls and the steady calls' statements compiled: the same in both runs), the second
one batch more, of steady calls only; nothing else is left for the exit (what is, a record of the
session's opening say, is the same in both). With 40 and 120 calls the difference held batches of
~5-30 records, their fixed cost at valgrind's pace, and statements of sizes met first (~1.3 M
instructions each to compile)."""


def available() -> bool:
    return shutil.which("valgrind") is not None


def _total(path: Path) -> int | None:
    """The instructions of all threads in exp-bbv's valgrind log (a ``Total instructions:`` line each)."""
    counts = [int(m) for m in re.findall(r"Total instructions:\s+(\d+)", path.read_text(errors="replace"))]
    return sum(counts) if counts else None


async def _one(
    process: Process, entry: Entry, python: dict[str, str], calls: int, timeout: float, lanes: dict[str, Any]
) -> int | None:
    """The instructions of one run of ``calls`` calls after the warm-up, or None; ``lanes`` gets where
    our server's sync tools ran at its exit (``{tool: "loop" | "pool" | "pool for good"}``)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "valgrind.log"
        tool = ["valgrind", "--tool=exp-bbv", "--instr-count-only=yes", f"--bb-out-file={tmp}/bbv.out",
                f"--log-file={out}"]
        state = f"NANOHUBMCP_STATE_DIR={tmp}/state"  # each run its own, empty state directory (module docstring)
        report = Path(tmp) / "lanes.json"
        argv = ["env", "PYTHONHASHSEED=0", "BENCH_READ_DISTRIBUTIONS=1", NATIVE_PATH, f"BENCH_LANE_REPORT={report}",
                state, *tool, *process.argv(python)]
        server = procs.ServerProcess(argv, env.BENCH, None)
        server.start()
        try:
            if await mcp.wait_ready(HOST, process.port, timeout, token=process.token) is None:
                return None
            conn = Connection(HOST, process.port)
            try:  # a first call under valgrind may take many seconds (imports, warming caches)
                session = (
                    await mcp.open_session(conn, timeout=timeout, token=entry.token)
                    if entry.era == mcp.PROTOCOL
                    else None
                )
                for _ in range(WARMUP + calls):
                    reply = await mcp.call(conn, entry, session, timeout=timeout)
                    if reply.status != 200 or mcp.ADD_EXPECT.encode() not in reply.body:
                        return None
            except (OSError, RuntimeError, asyncio.TimeoutError):
                return None
            finally:
                await conn.close()
        finally:
            # valgrind writes the counts as the process exits: give it time before stop()'s SIGKILL
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                await asyncio.to_thread(server.proc.wait, 120)  # type: ignore[union-attr]
            server.stop()
        with contextlib.suppress(OSError, ValueError):
            lanes.update(json.loads(report.read_text()))
        return _total(out) if out.exists() else None


async def measure(
    pairs: list[tuple[Process, Entry]],
    python: dict[str, str],
    low: int,
    high: int,
    timeout: float,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """``{entry name: {"per_call": instructions, "low": total, "high": total, ...}}``."""
    out: dict[str, Any] = {"low_calls": low, "high_calls": high, "warmup_calls": WARMUP, "entries": {}}
    for process, entry in pairs:
        t0 = time.perf_counter()
        lanes: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
        a = await _one(process, entry, python, low, timeout, lanes[0])
        b = await _one(process, entry, python, high, timeout, lanes[1])
        per = (b - a) / (high - low) if a is not None and b is not None else None
        out["entries"][entry.name] = {
            "process": process.key,
            "low_total": a,
            "high_total": b,
            "per_call": per,
            "seconds": round(time.perf_counter() - t0, 1),
            "lanes": {"low": lanes[0], "high": lanes[1]},
        }
        shown = "-" if per is None else f"{per:,.0f}"
        where = f"; lanes {lanes[0]}, {lanes[1]}" if lanes[0] or lanes[1] else ""
        log(f"instructions {entry.name}: {shown} per call ({time.perf_counter() - t0:.0f} s; totals {a}, {b}{where})")
    return out


FLOOR = "sdk floor: SERVER span + histogram"
"""The key of the whole floor in :func:`sdk_floor`'s figures."""


def sdk_floor(python: str, log: Callable[[str], None], low: int = 200, high: int = 1200) -> dict[str, Any]:
    """What the OpenTelemetry SDK alone costs per traced call, in instructions, set up as the
    ``--tracing`` server sets it up: ``otel_cost.py --instructions --only sdk`` (one SERVER span with
    the 8 attributes of a traced session call made current and ended, one measurement with its 6
    attributes inside it; and those parts alone). Beside the traced server's row it splits what
    tracing costs into the SDK's floor and ours. ``{name: instructions per call}``, or
    ``{"error": ...}``."""
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "floor.json"
        argv = [python, str(env.BENCH / "otel_cost.py"), "--instructions", "--only", "sdk",
                "--low", str(low), "--high", str(high), "--json", str(out)]
        try:
            done = subprocess.run(argv, cwd=env.REPO, capture_output=True, text=True, timeout=900)
        except subprocess.TimeoutExpired:
            return {"error": "timed out"}
        if done.returncode != 0 or not out.exists():
            return {"error": (done.stderr or done.stdout)[-500:]}
        figures: dict[str, Any] = json.loads(out.read_text())
    shown = figures.get(FLOOR)
    log(f"instructions, OpenTelemetry SDK alone: {'-' if shown is None else f'{shown:,.0f}'} per call "
        f"({time.perf_counter() - t0:.0f} s)")
    return figures
