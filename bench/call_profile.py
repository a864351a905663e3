#!/usr/bin/env python3
"""cProfile of ``tools/call`` through the connection seam: which functions a call's CPU goes to.

    .venv/bin/python bench/call_profile.py                      # 3000 calls of a sync tool, defaults on
    .venv/bin/python bench/call_profile.py --no-provenance --async-tool --calls 5000

The server is built as ``servers/ours.py`` builds it (``MCPServer("bench")``: provenance on, the
default job store), with one tool ``add(a, b)`` (a plain ``def``: it goes the way most tools go;
``--async-tool`` for an ``async def``). Each call is parsed and served by ``Connection.serve`` on
one event loop, as every transport hands a message over; nothing of HTTP is measured. Prints the
top functions by own time and by inclusive time (cProfile's overhead inflates small functions:
read shares, not microseconds). Not a test: nothing asserts a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
import time
from pathlib import Path

# bench/profile.py would shadow the standard library's profile module that cProfile imports
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
import cProfile  # noqa: E402
import pstats  # noqa: E402

from nanohubmcp import MCPServer  # noqa: E402
from nanohubmcp.protocol import jsonenc  # noqa: E402
from nanohubmcp.server.connection import Connection  # noqa: E402


def build(provenance: bool, async_tool: bool) -> MCPServer:
    server = MCPServer("bench", **({} if provenance else {"provenance": False}))
    if async_tool:

        @server.tool()
        async def add(a: float, b: float) -> float:
            """Add two numbers."""
            return a + b

    else:

        @server.tool()
        def add(a: float, b: float) -> float:
            """Add two numbers."""
            return a + b

    return server


async def calls(server: MCPServer, n: int) -> None:
    connection = Connection(server.core, "bench")
    body = jsonenc.dumpb(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
    )
    for _ in range(n):
        reply = await connection.serve(connection.request(connection.parse(body), version="2025-03-26"))  # type: ignore[arg-type]
        assert reply.message is not None
        assert "result" in reply.message


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=3000)
    p.add_argument("--no-provenance", action="store_true")
    p.add_argument("--async-tool", action="store_true")
    p.add_argument("--top", type=int, default=30)
    a = p.parse_args()
    server = build(not a.no_provenance, a.async_tool)
    asyncio.run(calls(server, 200))  # warm up
    t0 = time.process_time()
    asyncio.run(calls(server, a.calls))
    plain = (time.process_time() - t0) / a.calls * 1e6
    prof = cProfile.Profile()
    prof.enable()
    asyncio.run(calls(server, a.calls))
    prof.disable()
    server.core.close()
    print(f"{a.calls} calls, {plain:.1f} µs CPU per call without the profiler")
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(key).print_stats(a.top)
        print(f"\n== by {key} ==")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:9000])


if __name__ == "__main__":
    main()
