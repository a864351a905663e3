"""The benchmark tool for bench/scaleout.py, served by ``nanohubmcp run`` (one or several workers,
memory or Redis state): ``add(a, b)``, as in servers/ours.py."""

from __future__ import annotations

from nanohubmcp import MCPServer

server = MCPServer("bench-scaleout")


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b
