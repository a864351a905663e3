"""nanohubmcp (this repository) serving ``add`` over stdio (run with the repo's .venv python), the inline lane on
as in servers/ours.py."""

from __future__ import annotations

from nanohubmcp import MCPServer

server = MCPServer("bench", inline_quick_calls=True)


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b


server.run(transport="stdio")
