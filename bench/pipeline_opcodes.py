#!/usr/bin/env python3
"""Python opcodes one ``tools/call`` executes through the connection seam: work counted, never timed.

    .venv/bin/python bench/pipeline_opcodes.py              # provenance on
    PROV=0 .venv/bin/python bench/pipeline_opcodes.py       # provenance off

For changes of a few dozen opcodes on the call path (a check in a layer, a step of the chain),
which callgrind runs of this path cannot resolve: their counts move by ±10k instructions a call
from run to run (the worker threads, the loop's timers), tens of times such a change. Here each
call is traced with ``sys.settrace`` (``f_trace_opcodes``) after 50 warm-up calls; the count is
the same for every call of a given path. Records are handed to a bounded no-op instead of the
writer (the layer's own work only). Run it on two checkouts (``PYTHONPATH=<checkout>``) and
compare; modes: no middleware of the user's, and one pass-through layer.
"""

from __future__ import annotations

import asyncio
import collections
import os
import sys
import tempfile
from typing import Any

from mcpbench.seam import adding_server

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.connection import Connection


def build(layers: int, state_dir: str) -> MCPServer:
    server = adding_server("opcodes", layers, state_dir=state_dir, provenance=os.environ.get("PROV", "1") == "1")
    kept: collections.deque[Any] = collections.deque(maxlen=4)
    server.core.provenance.pending.add = lambda item: (kept.append(item), True)[1]  # type: ignore[method-assign]
    return server


async def opcodes(layers: int, calls: int = 20) -> list[int]:
    """The opcodes of each of ``calls`` calls (after 50 untraced ones)."""
    with tempfile.TemporaryDirectory() as scratch:
        server = build(layers, scratch)
        connection = Connection(server.core, "bench")
        body = jsonenc.dumpb({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                              "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})

        async def one() -> None:
            message = connection.parse(body)
            reply = await connection.serve(connection.request(message, version="2025-03-26"))  # type: ignore[arg-type]
            assert reply.message is not None
            assert "result" in reply.message

        for _ in range(50):
            await one()
        count = 0

        def tracer(frame: Any, event: str, arg: Any) -> Any:
            nonlocal count
            frame.f_trace_opcodes = True
            if event == "opcode":
                count += 1
            return tracer

        counts = []
        for _ in range(calls):
            count = 0
            sys.settrace(tracer)
            await one()
            sys.settrace(None)
            counts.append(count)
        server.core.close()
    return counts


async def main() -> None:
    for layers in (0, 1):
        counts = await opcodes(layers)
        print(f"{layers} layer(s): {min(counts)} opcodes a call (max {max(counts)})")


if __name__ == "__main__":
    asyncio.run(main())
