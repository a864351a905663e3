"""The official ``mcp`` SDK 2.3.0 (``MCPServer``) over Streamable HTTP on uvicorn (peers venv).

``--json`` sets ``json_response=True`` (answers as application/json instead of an SSE stream);
``--stateless`` sets ``stateless_http=True``. Log level WARNING: no access log.
"""

from __future__ import annotations

from _args import parse
from mcp.server.mcpserver import MCPServer

opts = parse(("json", "stateless"))
server = MCPServer("bench", log_level="WARNING")


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b


@server.tool()
def big(n: int) -> str:
    """A text of n characters."""
    return "x" * n


server.run(
    "streamable-http", host=opts.host, port=opts.port, json_response=opts.json, stateless_http=opts.stateless
)
