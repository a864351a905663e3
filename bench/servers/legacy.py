"""nanohub-mcp 0.4.7 (the earlier package, peers venv only) serving the two benchmark tools.

Its request handler logs every request; ``log_message`` is replaced by a no-op so that the
benchmark measures serving, not terminal output (its other prints go to /dev/null).
"""

from __future__ import annotations

from _args import parse

from nanohubmcp import MCPServer, transport

opts = parse()
transport.MCPRequestHandler.log_message = lambda *args, **kwargs: None
server = MCPServer("bench", version="1.0.0")


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return float(a) + float(b)


@server.tool()
def big(n: int) -> str:
    """A text of n characters."""
    return "x" * int(n)


server.run(host=opts.host, port=opts.port)
