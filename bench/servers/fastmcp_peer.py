"""fastmcp 4.2.3 over its HTTP (Streamable HTTP) transport on uvicorn (peers venv).

``--json`` / ``--stateless`` map to fastmcp's ``json_response`` / ``stateless_http``.
"""

from __future__ import annotations

from _args import parse
from fastmcp import FastMCP

opts = parse(("json", "stateless"))
server = FastMCP("bench")


@server.tool
def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b


@server.tool
def big(n: int) -> str:
    """A text of n characters."""
    return "x" * n


server.run(
    transport="http",
    host=opts.host,
    port=opts.port,
    log_level="WARNING",
    show_banner=False,
    json_response=opts.json,
    stateless_http=opts.stateless,
)
