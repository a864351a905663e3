#!/usr/bin/env python3
"""What holding an answer to one SSE event costs the event loop: a result held to an output schema (never linked),
measured against the 1 MiB bound, in-process and through a real server over legacy SSE.

    PYTHONPATH=<checkout> .venv/bin/python bench/event_hold.py            # 20 MB, and a 0.5 MB one that fits
    PYTHONPATH=<checkout> .venv/bin/python bench/event_hold.py 100        # 100 MB

In-process: ``hold_to_event`` of a ``{"content": [text], "structuredContent": {...}}`` of about N MB (half its JSON
text as the text block, half the values), the best of 5, in ms: the time the loop is held to refuse it (or, for
the one that fits, to pass it: its text is then written again by the transport, or, from issue 28 on, copied).
Over legacy SSE: the wall time of one call of a tool returning such a result with ``output_schema=``, the
official ``mcp`` client, the best of 3 (the tool's run and the result's shaping included; the same on both trees).
Not a test: nothing asserts a figure.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any


def result_of(megabytes: float) -> dict[str, Any]:
    rows = int(megabytes * 1e6 / 2 / 40)
    values = {"rows": [{"x": i * 0.5, "label": f"r{i}", "ok": i % 2 == 0} for i in range(rows)]}
    return {"content": [{"type": "text", "text": json.dumps(values, separators=(",", ":"))}],
            "structuredContent": values, "isError": False}


def held_ms(result: dict[str, Any]) -> tuple[float, str]:
    from nanohubmcp.errors import ResultTooLarge
    from nanohubmcp.server.results.event_bound import hold_to_event

    best, said = float("inf"), "fits"
    for _ in range(5):
        start = time.perf_counter()
        try:
            hold_to_event(result, "t", held=True, bound=1 << 20)
        except ResultTooLarge as exc:
            said = str(exc).split(",")[0]
        best = min(best, time.perf_counter() - start)
    return best * 1000, said


def over_sse(megabytes: float) -> float:
    sys.path.insert(0, "tests")
    from support import mcp_client, serve

    from nanohubmcp import MCPServer

    server = MCPServer("hold", provenance=False)
    made = result_of(megabytes)["structuredContent"]

    @server.tool(output_schema={"type": "object"})
    def table() -> dict[str, Any]:
        """About N MB of rows."""
        return made

    async def main(url: str) -> float:
        async with mcp_client(url + "sse", transport="sse") as client:
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                await client.call_tool("table", {})
                best = min(best, time.perf_counter() - start)
            return best

    with serve(server) as url:
        return asyncio.run(main(url)) * 1000


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit()
    sizes = [float(sys.argv[1])] if len(sys.argv) > 1 else [20.0, 0.5]
    for size in sizes:
        ms, said = held_ms(result_of(size))
        print(f"{size:g} MB: hold {ms:.2f} ms ({said}); one call over legacy SSE {over_sse(size):.0f} ms", flush=True)
