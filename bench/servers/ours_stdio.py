"""nanohubmcp (this repository) serving ``add`` over stdio (run with the repo's .venv python)."""

from __future__ import annotations

from nanohubmcp import MCPServer

server = MCPServer("bench")


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b


server.run(transport="stdio")
