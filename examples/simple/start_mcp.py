"""Simple calculator: five arithmetic tools, a settings resource and a calculation prompt.

Run it, then point any MCP client at ``http://localhost:8000/mcp``::

    python examples/simple/start_mcp.py                # 127.0.0.1:8000 (or $MCP_PORT)
    # other machines may connect: bind every interface and require the token in a file only you can
    # read (chmod 600 ~/.mcp-token), or in $MCP_TOKEN; not --token TOKEN, which ps shows to everyone
    python examples/simple/start_mcp.py --port 8123 --host 0.0.0.0 --token-file ~/.mcp-token

Try it without a client::

    curl -X POST http://localhost:8000/tools/add -H "Content-Type: application/json" -d '{"a": 2, "b": 3}'
"""

from __future__ import annotations

import argparse

from nanohubmcp import Context, MCPServer  # noqa: F401  (Context is named in # type: comments)
from nanohubmcp.cli import add_port_option, add_script_token_options

server = MCPServer("simple-calculator", version="1.0.0")


@server.tool()
def add(a, b):
    # type: (float, float) -> float
    """Add two numbers together."""
    return float(a) + float(b)


@server.tool(tags={"math", "advanced"})
def power(ctx, base, exponent):
    # type: (Context, float, float) -> float
    """Raise base to the power of exponent. Demonstrates Context usage."""
    ctx.info(f"Computing {base}^{exponent}")
    return float(base) ** float(exponent)


@server.tool()
def subtract(a, b):
    # type: (float, float) -> float
    """Subtract b from a."""
    return float(a) - float(b)


@server.tool()
def multiply(a, b):
    # type: (float, float) -> float
    """Multiply two numbers."""
    return float(a) * float(b)


@server.tool()
def divide(a, b):
    # type: (float, float) -> float
    """Divide a by b."""
    if float(b) == 0:
        # Raised errors reach the client as an isError result with this text.
        raise ValueError("Cannot divide by zero")
    return float(a) / float(b)


@server.resource("config://calculator/settings")
def get_settings() -> dict:  # listed as application/json, the type its read gives
    """Get calculator settings."""
    return {
        "precision": 10,
        "max_value": 1e308,
        "supported_operations": ["add", "subtract", "multiply", "divide", "power"],
    }


@server.prompt()
def calculate(expression):
    # type: (str) -> list
    """Generate a calculation prompt."""
    return [
        {
            "role": "user",
            "content": {"type": "text", "text": f"Please calculate: {expression}"},
        }
    ]


def main(argv=None):
    # type: (list[str] | None) -> None
    """Parse ``--host``/``--port`` (default 127.0.0.1 and ``$MCP_PORT`` or 8000), ``--token-file``/``--token``
    (default ``$MCP_TOKEN``) and ``--transport`` (default ``$MCP_TRANSPORT`` or http; stdio for
    desktop clients) and serve."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1, this machine)")
    add_script_token_options(parser)  # --token-file PATH, else $MCP_TOKEN; an empty --token exits 2
    add_port_option(parser)  # --port N, else $MCP_PORT, else 8000; a bad one exits 2 saying 0-65535
    parser.add_argument("--transport", choices=["http", "stdio"], default=None,
                        help="http, or stdio for desktop clients (default: $MCP_TRANSPORT or http)")
    args = parser.parse_args(argv)
    server.run(host=args.host, port=args.port, transport=args.transport, token=args.token)


if __name__ == "__main__":
    main()
