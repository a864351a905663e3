"""nanohubmcp (this repository) serving the two benchmark tools. Run it with the repo's .venv python.

``add(a, b)`` answers the throughput load; ``big(n)`` returns ``n`` characters (the 1 MB result);
``--token T`` requires the bearer token T on every request.
``add_progress`` reports progress first, so a client accepting SSE gets an SSE-framed answer.
"""

from __future__ import annotations

from _args import parse

from nanohubmcp import MCPServer

opts = parse(values=("token",))
server = MCPServer("bench")


@server.tool()
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b


@server.tool()
def add_progress(a: float, b: float, ctx) -> float:
    """Sum of two numbers, after one progress notification (SSE-framed when the client allows)."""
    ctx.report_progress(1, 1)
    return a + b


@server.tool()
def big(n: int) -> str:
    """A text of n characters."""
    return "x" * n


# --token: every request must carry "Authorization: Bearer <token>" ("" = no authorization)
server.run(host=opts.host, port=opts.port, quiet=True, token=opts.token)
