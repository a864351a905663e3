"""An app for the stdio tests: progress, an elicitation, a template, log messages, and tools that
print to stdout, warn and log (none of which may reach the protocol stream)."""

from __future__ import annotations

import logging
import sys
import time
import warnings

from nanohubmcp import Context, MCPServer

server = MCPServer("stdio-features")
print("the app printed this while being imported")

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@server.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@server.tool()
def chatty(text: str) -> str:
    """Print, warn and log, then answer."""
    print(f"printed: {text}")
    print("to stdout explicitly", file=sys.stdout, flush=True)
    warnings.warn("a warning from a tool", stacklevel=1)
    logging.getLogger("features").warning("a log record from a tool")
    return text.upper()


@server.tool()
def count(ctx: Context, steps: int = 3) -> str:
    """Report progress for each step and a log message."""
    for step in range(steps):
        ctx.report_progress(step + 1, steps, f"step {step + 1}")
    ctx.info("counted")
    return f"counted {steps}"


@server.tool()
def greet(ctx: Context) -> str:
    """Ask the user's name, then greet them."""
    answer = ctx.elicit("What is your name?", NAME)
    return f"Hello, {answer['content']['name']}!"


@server.tool()
def wait(ctx: Context, seconds: float = 30.0) -> str:
    """Wait until cancelled (or the time is up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ctx.is_cancelled():
            return "cancelled"
        time.sleep(0.02)
    return "waited"


@server.tool()
def paced(ctx: Context) -> str:
    """End the call's SSE response early (the client resumes it), then answer."""
    ctx.report_progress(1, 2, "before the break")
    ctx.close_stream()
    return "resumed"


@server.tool()
def era(ctx: Context) -> str:
    """The protocol version of this call."""
    return ctx.protocol_version


@server.resource("data://motd", mime_type="text/plain")
def motd() -> str:
    """Message of the day."""
    return "stay curious"


@server.resource("greeting://{name}", mime_type="text/plain")
def greeting(name: str) -> str:
    """A greeting for ``name``."""
    return f"Hi {name}"


@server.prompt()
def explain(topic: str) -> str:
    """Explain a topic."""
    return f"Explain {topic} simply."


if __name__ == "__main__":
    server.run()
