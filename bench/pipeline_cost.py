#!/usr/bin/env python3
"""Per-call cost of the call pipeline: ``tools/call`` through the connection seam, in this process.

    .venv/bin/python bench/pipeline_cost.py                      # 15 rounds x 2000 calls per mode
    .venv/bin/python bench/pipeline_cost.py --calls 5000 --rounds 9 --json /tmp/pipeline.json

No sockets, no threads of the client's own: each call is parsed, given its request context and
served by ``Connection.serve`` on one event loop, the way every transport hands a message over,
so what is timed is the core's path (dispatcher, pipeline, handler, an ``async def`` tool) and
nothing of HTTP. Modes, interleaved round by round so machine noise hits them alike:

- ``none``: no middleware of the user's (the built-in layers only);
- ``1 layer`` / ``5 layers``: that many pass-through layers (``return await call_next(request)``).

The table gives the CPU microseconds per call (the fastest round: on a shared machine the least
disturbed one) and the cost per layer. Run it on another
checkout (``PYTHONPATH=<checkout>``) for the figure of a version before the pipeline: that
version has no ``add_middleware``, so only ``none`` is measured there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from mcpbench.seam import adding_server

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.connection import Connection

MODES = {"none": 0, "1 layer": 1, "5 layers": 5}


def build(layers: int) -> MCPServer:
    return adding_server("pipeline-cost", layers, job_store="memory")


async def time_calls(server: MCPServer, calls: int) -> float:
    """CPU seconds of this process for ``calls`` sessionless ``tools/call`` messages served one
    after another (CPU time: what other processes on a shared machine do counts less)."""
    connection = Connection(server.core, "bench")
    body = jsonenc.dumpb({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
    started = time.process_time()
    for _ in range(calls):
        message = connection.parse(body)
        reply = await connection.serve(connection.request(message, version="2025-03-26"))  # type: ignore[arg-type]
        assert reply.message is not None
        assert "result" in reply.message
    return time.process_time() - started


async def main(calls: int, rounds: int) -> dict[str, float]:
    modes = dict(MODES)
    if not hasattr(MCPServer, "add_middleware"):
        modes = {"none": 0}
    servers = {mode: build(layers) for mode, layers in modes.items()}
    for server in servers.values():
        await time_calls(server, 200)  # warm up
    samples: dict[str, list[float]] = {mode: [] for mode in modes}
    for _ in range(rounds):
        for mode, server in servers.items():
            samples[mode].append(await time_calls(server, calls) / calls * 1e6)
    for server in servers.values():
        server.core.close()
    return {mode: min(values) for mode, values in samples.items()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    medians = asyncio.run(main(args.calls, args.rounds))
    base = medians["none"]
    print(f"{'mode':<10} {'us/call':>8} {'vs none':>8}")
    for mode, value in medians.items():
        print(f"{mode:<10} {value:8.1f} {value - base:+8.1f}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(medians, out, indent=2)
