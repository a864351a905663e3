"""The server the scale-out tests run in several processes (``nanohubmcp run app.py``)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

from nanohubmcp import Context, MCPServer, StaticTokenVerifier


def _verifier() -> StaticTokenVerifier | None:
    """With ``SCALEOUT_TOKENS="token=subject,..."`` each token is a principal (the isolation tests)."""
    pairs = os.environ.get("SCALEOUT_TOKENS")
    if not pairs:
        return None
    return StaticTokenVerifier(dict(pair.split("=", 1) for pair in pairs.split(",")))


# SCALEOUT_STATE_SECRET: the processes share this state_secret (else they share the key Redis holds)
server = MCPServer("scaleout-test", auth=_verifier(), state_secret=os.environ.get("SCALEOUT_STATE_SECRET"))
NOTES: dict[str, str] = {"text": "first"}


@server.tool()
def where() -> dict:
    """The process serving this call."""
    return {"pid": os.getpid()}


@server.tool()
async def count(n: int, ctx: Context, pause: float = 0.02) -> str:
    """Count to n, reporting progress and logging each step, pausing between steps."""
    for i in range(n):
        if ctx.is_cancelled():
            return "stopped"
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


@server.async_tool()
def ask_when(path: str, ctx: Context) -> str:
    """Wait until ``path`` exists, then ask whether to go on (a task in ``input_required`` until its
    client answers with tasks/update)."""
    while not os.path.exists(path):
        time.sleep(0.05)
    answer = ctx.elicit(
        "Go on?", {"type": "object", "properties": {"ok": {"type": "boolean"}}}, key="go_on", timeout=60
    )
    return f"go on: {answer['content']['ok']}"


@server.async_tool()
async def tally(n: int, ctx: Context) -> str:
    """Count to n as a job (a task), reporting progress and logging each step."""
    for i in range(n):
        ctx.report_progress(i + 1, n, f"step {i + 1}")
        ctx.info(f"tallied {i + 1}")
        await asyncio.sleep(0.01)
    return f"tallied to {n} in {os.getpid()}"


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


def _waiter() -> Callable[..., dict]:
    """A job that reports progress every 50 ms until ``path`` exists (its end the test decides).
    Defined in a function so that Dask ships it to the worker by value (the worker cannot import
    this file)."""

    def wait_for_path(path: str, ctx: Context) -> dict:
        """Report progress until ``path`` exists."""
        import os
        import time

        step = 0
        while not os.path.exists(path):
            step += 1
            ctx.report_progress(step, None, f"waiting, step {step}")
            time.sleep(0.05)
        return {"found": path, "pid": os.getpid()}

    return wait_for_path


server.async_tool(name="until_file")(_waiter())  # in a thread of the server process
if os.environ.get("DASK_SCHEDULER_ADDRESS"):  # with a Dask scheduler: on a Dask worker
    server.async_tool(executor="dask", name="wait_on_dask")(_waiter())


@server.async_tool()
def spin(seconds: float, folder: str, tag: str, ctx: Context) -> dict:
    """Run up to ``seconds``, writing <folder>/<tag>.started (its pid) at once and <tag>.cancelled
    once it sees the call cancelled (a job the cancel tests stop on another process)."""
    base = os.path.join(folder, tag)
    with open(base + ".started", "w") as out:
        out.write(str(os.getpid()))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ctx.is_cancelled():
            with open(base + ".cancelled", "w") as out:
                out.write(str(os.getpid()))
            return {"stopped": True}
        time.sleep(0.02)
    return {"done": seconds}


def _late_first_reads(seconds: float) -> None:
    """Make each stream's first read of its event log wait ``seconds`` (a loaded machine: the
    task reading a fresh stream gets the CPU late, after messages were written to the log)."""
    from nanohubmcp.state.redis_state import RedisState

    read = RedisState.read
    started: set[tuple[str, str]] = set()

    async def late_read(self: RedisState, session_id: str, stream_id: str, after: str, block_ms: int) -> list:
        if (session_id, stream_id) not in started:
            started.add((session_id, stream_id))
            await asyncio.sleep(seconds)
        return await read(self, session_id, stream_id, after, block_ms)

    RedisState.read = late_read  # type: ignore[method-assign]


if os.environ.get("SCALEOUT_LATE_FIRST_READ"):
    _late_first_reads(float(os.environ["SCALEOUT_LATE_FIRST_READ"]))


@server.tool()
def progress_blob(n: int, ctx: Context) -> str:
    """Report progress once, then answer ``n`` characters (a response sent as an SSE stream)."""
    ctx.report_progress(1, 1)
    return "x" * n
