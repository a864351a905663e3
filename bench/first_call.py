"""Instructions of a served script's first ``tools/call`` (issue 28: the latency an assistant's first call pays).

    .venv/bin/python bench/first_call.py [--tree <checkout>] [--keep DIR]

Starts ``servers/ours.py`` (``--tree``: another checkout's nanohubmcp) under ``valgrind --tool=callgrind``
(``PYTHONHASHSEED=0``), waits for its first ``initialize`` answer, opens a session, and dumps callgrind's
counts with ``callgrind_control --dump`` at each mark: after the session opened ("start"), ``--idle`` seconds later
("idle": what the server did meanwhile, its warm-up's imports), after the first
``add`` call ("first-call"), after a second one ("second-call"). Prints the instructions of each part (all
threads): the first call's part less the second's is what the first call pays beyond a steady one. ``--keep``
keeps the dumps (``callgrind_annotate`` them to see where it went). ~1 min a run.
``--wall N``: instead, N native runs timing the first and the second call (ms; they move with the host's load).
``--pings S``: instead, one native run pinging back to back for S seconds from the session's opening: each
answer's ms by when it was sent (the warm-up thread runs from ~1 s: what its imports and compiling cost the
loop's answers meanwhile).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from mcpbench import env, mcp, procs
from mcpbench.http import Connection
from mcpbench.matrix import Entry

HOST = "127.0.0.1"


def _parts(folder: Path) -> dict[str, int]:
    """``{trigger: instructions}`` summed over the dumps (threads) of each trigger, and ``{trigger/main: ...}``
    the main thread's (the event loop's: what the call waits for)."""
    out: dict[str, int] = {}
    for path in folder.glob("cg.out.*"):
        text = path.read_text(errors="replace")
        trigger = re.search(r"^desc: Trigger: (.*)$", text, re.M)
        total = re.search(r"^(?:summary|totals):\s+(\d+)", text, re.M)
        if trigger and total:
            key = trigger.group(1).split()[-1]
            out[key] = out.get(key, 0) + int(total.group(1))
            if re.search(r"^thread: 1$", text, re.M):
                out[key + "/main"] = int(total.group(1))
    return out


async def measure(tree: str | None, keep: str | None, extra: list[str], idle: float,
                  port: int = 8341) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        argv = [sys.executable, str(Path(__file__).parent / "servers/ours.py"), "--port", str(port)]
        if tree:
            argv += ["--tree", tree]
        tool = ["valgrind", "--tool=callgrind", "--separate-threads=yes", f"--callgrind-out-file={out}.%p"]
        state = f"NANOHUBMCP_STATE_DIR={tmp}/state"
        server = procs.ServerProcess(["env", "PYTHONHASHSEED=0", state, *extra, *tool, *argv], env.BENCH, None)
        server.start()

        def dump(mark: str) -> None:
            subprocess.run(["callgrind_control", f"--dump={mark}", str(server.pid)], capture_output=True,
                           timeout=120, check=False)

        try:
            if await mcp.wait_ready(HOST, port, 300) is None:
                raise SystemExit("the server did not answer")
            conn = Connection(HOST, port)
            entry = Entry("ours", "ours", "ours")
            try:
                session = await mcp.open_session(conn, timeout=300)
                dump("start")
                await asyncio.sleep(idle)  # (a served process imports a first call's modules once idle: warm_up)
                dump("idle")
                for mark in ("first-call", "second-call"):
                    reply = await mcp.call(conn, entry, session, timeout=300)
                    assert mcp.ADD_EXPECT.encode() in reply.body, reply.body[:300]
                    dump(mark)
            finally:
                await conn.close()
        finally:
            server.stop()
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            for path in Path(tmp).glob("cg.out.*"):
                shutil.copy(path, keep)
        return _parts(Path(tmp))


@contextlib.asynccontextmanager
async def _session(tree: str | None, port: int) -> AsyncIterator[tuple[Connection, str | None]]:
    """A native ``servers/ours.py`` (``--tree``) with a session opened on a connection to it."""
    argv = [sys.executable, str(Path(__file__).parent / "servers/ours.py"), "--port", str(port)]
    if tree:
        argv += ["--tree", tree]
    with tempfile.TemporaryDirectory() as tmp:
        server = procs.ServerProcess(["env", f"NANOHUBMCP_STATE_DIR={tmp}/state", *argv], env.BENCH, None)
        server.start()
        try:
            if await mcp.wait_ready(HOST, port, 60) is None:
                raise SystemExit("the server did not answer")
            conn = Connection(HOST, port)
            try:
                yield conn, await mcp.open_session(conn, timeout=60)
            finally:
                await conn.close()
        finally:
            server.stop()


async def wall(tree: str | None, idle: float, port: int) -> tuple[float, float]:
    """Milliseconds of the first and the second ``add`` call of a server run natively, the first ``idle`` seconds
    after its session opened."""
    async with _session(tree, port) as (conn, session):
        await asyncio.sleep(idle)
        took = []
        for _ in range(2):
            t = time.perf_counter()
            reply = await mcp.call(conn, Entry("ours", "ours", "ours"), session, timeout=60)
            took.append((time.perf_counter() - t) * 1e3)
            assert mcp.ADD_EXPECT.encode() in reply.body, reply.body[:300]
    return took[0], took[1]


async def pings(tree: str | None, seconds: float, port: int) -> list[tuple[float, float]]:
    """``(seconds since the session opened, ms)`` of each ``ping`` sent back to back on one connection for
    ``seconds`` from the session's opening, natively: what the warm-up thread costs the loop's answers meanwhile
    (it starts 1 s after listening)."""
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    out = []
    async with _session(tree, port) as (conn, session):
        opened = time.perf_counter()
        while (t := time.perf_counter()) - opened < seconds:
            reply = await conn.request("POST", "/mcp", mcp.headers(session=session), body, 60)
            assert b'"result"' in reply.body, reply.body[:300]
            out.append((t - opened, (time.perf_counter() - t) * 1e3))
    return out


def _windows(timed: list[tuple[float, float]], edges: tuple[float, ...]) -> str:
    parts = []
    for low, high in itertools.pairwise(edges):
        ms = sorted(m for t, m in timed if low <= t < high)
        if ms:
            parts.append(f"[{low:.1f}, {high:.1f}) s: n {len(ms)}, median {ms[len(ms) // 2]:.2f}, "
                         f"p99 {ms[min(len(ms) - 1, int(len(ms) * 0.99))]:.2f}, max {ms[-1]:.2f} ms")
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", default=None)
    parser.add_argument("--keep", default=None)
    parser.add_argument("--port", type=int, default=8341)
    parser.add_argument("--idle", type=float, default=30.0, help="seconds idle between the start and the first call")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server (repeatable)")
    parser.add_argument("--wall", type=int, default=0, help="instead: N native runs, ms of the first and second call")
    parser.add_argument("--pings", type=float, default=0.0,
                        help="instead: ping back to back for S seconds from the session's opening (native ms)")
    args = parser.parse_args()
    if args.pings:
        timed = asyncio.run(pings(args.tree, args.pings, args.port))
        print(_windows(timed, (0.0, 0.8, 1.6, 2.4, args.pings)))
        print("slowest:", ", ".join(f"{m:.1f} ms at {t:.3f} s" for t, m in sorted(timed, key=lambda p: -p[1])[:8]))
        return
    if args.wall:
        for _ in range(args.wall):
            first, second = asyncio.run(wall(args.tree, args.idle, args.port))
            print(f"first call {first:8.1f} ms   second {second:6.1f} ms")
        return
    parts = asyncio.run(measure(args.tree, args.keep, args.env, args.idle, args.port))
    for mark in ("start", "idle", "first-call", "second-call"):
        print(f"{mark:12} {parts.get(mark, 0):>14,} (main thread {parts.get(mark + '/main', 0):,})")


if __name__ == "__main__":
    main()
