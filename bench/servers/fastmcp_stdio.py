"""fastmcp 4.2.3 serving ``add`` over stdio (peers venv)."""

from __future__ import annotations

from fastmcp import FastMCP

server = FastMCP("bench")


@server.tool
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b


server.run(transport="stdio", show_banner=False, log_level="WARNING")
