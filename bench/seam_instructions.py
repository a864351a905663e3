#!/usr/bin/env python3
"""Instructions per ``tools/call`` through the connection seam, in a session, counted by exp-bbv over every
thread (the provenance writer's included): provenance on, off, or a result-cache hit; ``sse`` and ``sse-off``:
provenance on or off, the call come over the legacy SSE transport (its answer one event: measured against the
event bound, then written); ``sink``: provenance on with the store's queue replaced by one that drops what the
layer hands over (the call's own share of a record, the writer's left out: ``on`` - ``sink`` is the writer's);
``mw1``, ``mw3``: provenance off, one or three middleware layers that hand each request on.

    PYTHONPATH=<checkout> .venv/bin/python bench/seam_instructions.py hit          # 256 and 1280 calls
    PYTHONPATH=<checkout> .venv/bin/python bench/seam_instructions.py on 256 1280
    PYTHONPATH=<checkout> .venv/bin/python bench/seam_instructions.py sse
    PYTHONPATH=<checkout> .venv/bin/python bench/seam_instructions.py sink         # the layer's share alone

What ``run.py``'s instruction rows measure over HTTP (an ``add(a, b)`` of ``{"a": 1.5, "b": 2.25}``, protocol
2025-11-25, a session), without the HTTP server around it: no socket, no clock-driven read attempts, so two runs
of one tree agree to ~1k a call where the HTTP pair spreads ~+-5k (bench/provenance.md, 2026-12-06). The tool is
an ``async def`` (no lane decided by the clock); records are written in full batches of 256 (the two counts'
difference is four batches), the cache's front never reads the store again within a run (natively once a
second: once per ~1,500 hits), the reply is encoded as a transport does. A hit's session is one ``Session``,
as over Streamable HTTP. (high - low) / (HIGH - LOW); ``--child MODE N`` is one run. Not a test.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading


class _Sink:
    """Stands in the provenance store's queue for ``sink``: takes each item and drops it (as the queue's
    ``add``, a method call that answers True)."""

    def add(self, item: object) -> bool:
        return True

    def drain(self) -> None:
        pass


def child(mode: str, calls: int) -> None:
    """One run: the server of ``mode``, 56 warm-up calls, then ``calls`` calls, the records left written."""
    from nanohubmcp import MCPServer
    from nanohubmcp.protocol import jsonenc
    from nanohubmcp.server.connection import Connection
    from nanohubmcp.server.provenance import code_facts, writer
    from nanohubmcp.server.wire.sessions import Session

    writer.DELAY_SECONDS = threading.TIMEOUT_MAX  # full batches only, as servers/ours.py under BENCH_NATIVE_PATH
    try:
        from nanohubmcp.server.provenance import cache_front

        cache_front.CHECK_SECONDS = threading.TIMEOUT_MAX
    except ImportError:  # a tree without the front
        pass
    code_facts.warm()
    if code_facts._table_reader is not None:
        code_facts._table_reader.join()
    server = MCPServer("seam", state_dir=tempfile.mkdtemp(), provenance=mode not in ("off", "sse-off", "mw1", "mw3"))
    for _ in range(int(mode[2:]) if mode in ("mw1", "mw3") else 0):  # provenance off, 1 or 3 pass-through layers

        @server.middleware
        async def passing(request, call_next):  # type: ignore[no-untyped-def]
            return await call_next(request)

    if mode == "sink":  # (before the first call: the layer takes the store's queue when it is made)
        server.core.provenance.pending = _Sink()  # type: ignore[assignment]

    @server.tool(cache=mode == "hit")
    async def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    session = Session(secrets.token_urlsafe(32), "2025-11-25")
    session.initialized = True

    async def run(n: int) -> None:
        connection = Connection(server.core, "sse" if mode.startswith("sse") else "bench")
        for i in range(n):
            body = jsonenc.dumpb({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                                  "params": {"name": "add", "arguments": {"a": 1.5, "b": 2.25}}})
            request = connection.request(connection.parse(body), version="2025-11-25", session=session)  # type: ignore[arg-type]
            reply = await connection.serve(request)
            assert reply.message is not None
            assert "result" in reply.message, reply.message
            jsonenc.dumpb_parts(reply.message)  # as a transport writes it

    asyncio.run(run(56))
    asyncio.run(run(calls))
    if mode not in ("off", "sse-off", "mw1", "mw3"):
        server.core.provenance.pending.drain()


def count(mode: str, calls: int, script: str = __file__) -> int:
    """Instructions of every thread of one run (exp-bbv's log): ``script --child mode calls`` (this one's by
    default; ``record_sql_cost.py``'s runs so too)."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["valgrind", "--tool=exp-bbv", "--instr-count-only=yes", f"--bb-out-file={tmp}/bbv",
                f"--log-file={tmp}/log", sys.executable, script, "--child", mode, str(calls)]
        subprocess.run(argv, check=True, capture_output=True, env=dict(os.environ, PYTHONHASHSEED="0"))
        with open(f"{tmp}/log") as log:
            return sum(int(found) for found in re.findall(r"Total instructions:\s+(\d+)", log.read()))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
    elif sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
    else:
        mode = sys.argv[1]
        low, high = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (256, 1280)
        a, b = count(mode, low), count(mode, high)
        print(f"{mode} {os.environ.get('PYTHONPATH')}: {(b - a) / (high - low):,.0f} instructions a call", flush=True)
