"""The official ``mcp`` SDK 2.3.0 (``MCPServer``) serving ``add`` over stdio."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("bench", log_level="WARNING")


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b


server.run("stdio")
