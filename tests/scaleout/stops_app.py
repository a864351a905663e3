"""The server of the tests of how a ``--workers`` server stops and restarts its workers (``nanohubmcp run``):
tools that hold a worker, each naming its process in its first progress message."""

from __future__ import annotations

import asyncio
import os
import pathlib
import time

from nanohubmcp import Context, MCPServer

# Threads for every call calls_on_every_worker may start on one process (40): with the default pool (cpu + 4) the
# calls a skewed accept put on one worker took all its threads, and the next one there waited 15 s for its headers.
server = MCPServer("stops", workers=48)


@server.tool()
def hold(path: str, ctx: Context) -> str:
    """Run, on a thread of the worker, until the file ``path`` exists (40 s at most)."""
    ctx.report_progress(1, 2, str(os.getpid()))
    deadline = time.monotonic() + 40
    while not pathlib.Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "released"


@server.tool()
async def stubborn(ctx: Context) -> str:
    """Wait on the event loop, never looking at ``ctx.is_cancelled()``: a stopping worker cuts it off at the end of
    its time for answers."""
    ctx.report_progress(1, 2, str(os.getpid()))
    await asyncio.sleep(60)
    return "done"


@server.tool()
def leave(code: int, ctx: Context) -> str:
    """End this worker's process at once with status ``code``, as a library calling ``os._exit`` does."""
    os._exit(code)
