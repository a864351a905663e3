"""A server whose application configured the OpenTelemetry SDK before building it (``otel_sdk``),
so the default ``tracing="auto"`` turns tracing on. The tracing tests serve it over HTTP in their
own process and run it with ``python -m nanohubmcp run traced_app.py --transport stdio``, where the
``spans`` tool answers what the server process recorded."""

from __future__ import annotations

import time
from typing import Any

import otel_sdk

from nanohubmcp import MCPServer
from nanohubmcp.server.wire import trace_context
from nanohubmcp.server.wire.trace_context import current_trace_ids

trace_context.STEP_MIN_SECONDS = 0.0  # every step of a call is a span, however quick (default: none)
server = MCPServer("traced")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def fails() -> str:
    """Always raise."""
    raise ValueError("the simulation diverged")


@server.tool()
def ids() -> list[str] | None:
    """The trace and span ids current inside the tool."""
    found = current_trace_ids()
    return list(found) if found is not None else None


@server.tool()
def slow(ms: float) -> str:
    """Take ``ms`` milliseconds."""
    time.sleep(ms / 1000)
    return "done"


@server.tool()
def spans() -> list[dict[str, Any]]:
    """The spans this server process finished so far (and forget them)."""
    found = otel_sdk.finished()
    otel_sdk.clear()
    return found


@server.resource("data://greeting", mime_type="text/plain")
def greeting() -> str:
    """A greeting."""
    return "hello"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Say hello to {name}."
