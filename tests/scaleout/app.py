"""The server the scale-out tests run in several processes (``nanohubmcp run app.py``)."""

from __future__ import annotations

import asyncio
import os
import time

from nanohubmcp import Context, MCPServer

server = MCPServer("scaleout-test")
NOTES: dict[str, str] = {"text": "first"}


@server.tool()
def where() -> dict:
    """The process serving this call."""
    return {"pid": os.getpid()}


@server.tool()
async def count(n: int, ctx: Context, pause: float = 0.02) -> str:
    """Count to n, reporting progress and logging each step, pausing between steps."""
    for i in range(n):
        ctx.report_progress(i + 1, n, f"step {i + 1}")
        ctx.info(f"counted {i + 1}")
        await asyncio.sleep(pause)
    return f"counted to {n} in {os.getpid()}"


@server.tool()
async def ask_name(ctx: Context) -> str:
    """Ask the user's name (elicitation) and greet them."""
    answer = await ctx.elicit(
        "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    )
    return f"hello {answer.get('content', {}).get('name')} from {os.getpid()}"


@server.tool()
def touch_note(text: str) -> str:
    """Change the note resource (subscribers are told)."""
    NOTES["text"] = text
    server.resource_updated("note://current")
    return "changed"


@server.resource("note://current")
def note() -> str:
    """The current note."""
    return NOTES["text"]


@server.async_tool()
def slow_square(x: int) -> int:
    """Square x after a moment (a job)."""
    time.sleep(0.3)
    return x * x


@server.async_tool()
def long_job(seconds: float) -> str:
    """A job that takes a while (its process may die under it)."""
    time.sleep(seconds)
    return "finished"


@server.tool()
async def nap(seconds: float) -> str:
    """Sleep (a call in flight while a process is killed)."""
    await asyncio.sleep(seconds)
    return f"slept in {os.getpid()}"
