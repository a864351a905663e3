"""A tool that counts until its call is cancelled, for the tests of cancels across processes."""

from __future__ import annotations

import asyncio

from nanohubmcp import Context, MCPServer

STEPS = 400
"""The call's steps of 0.05 s (20 s): a cancel lost lets it run to its end."""


def add_count(server: MCPServer, ends: list[str], *, starts: list[str] | None = None) -> None:
    """Register ``count`` on ``server``: it appends how it ended to ``ends`` ("cancelled", "ran to its end"), and
    "started" to ``starts`` when it starts."""

    @server.tool()
    async def count(ctx: Context) -> str:
        """Count until cancelled, reporting progress."""
        if starts is not None:
            starts.append("started")
        try:
            for step in range(STEPS):
                ctx.report_progress(step + 1, STEPS)
                if ctx.is_cancelled():
                    ends.append("cancelled")
                    return "cancelled"
                await asyncio.sleep(0.05)
        except asyncio.CancelledError:  # a client's cancel cancels an async def tool's coroutine (its await raises)
            ends.append("cancelled")
            raise
        ends.append("ran to its end")
        return "counted"
