"""Helpers for the stdio tests: the command lines desktop clients would run, and the two official
stdio clients (``mcp.client.stdio`` speaks the 2025-11-25 handshake era, fastmcp 4.x's stdio client
the stateless 2026-07-28 era)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FEATURES_APP = Path(__file__).resolve().parent / "features_app.py"


def example_command(name: str) -> list[str]:
    """``python examples/<name>/start_mcp.py --transport stdio``."""
    return [sys.executable, str(EXAMPLES / name / "start_mcp.py"), "--transport", "stdio"]


def run_command(app: Path | str) -> list[str]:
    """``python -m nanohubmcp run APP --transport stdio``."""
    return [sys.executable, "-m", "nanohubmcp", "run", str(app), "--transport", "stdio"]


@contextlib.asynccontextmanager
async def official_client(command: list[str], **session_options: Any) -> AsyncIterator[Any]:
    """An initialized ``mcp.ClientSession`` over ``mcp.client.stdio`` running ``command``."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write, **session_options) as session:
        await session.initialize()
        yield session


@contextlib.asynccontextmanager
async def fastmcp_client(command: list[str], **client_options: Any) -> AsyncIterator[Any]:
    """A connected ``fastmcp.Client`` over its stdio transport running ``command``."""
    import fastmcp
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(command[0], command[1:], cwd=str(ROOT), keep_alive=False)
    async with fastmcp.Client(transport, **client_options) as client:
        yield client


def bridge_command(url: str, *options: str) -> list[str]:
    """``python -m nanohubmcp bridge URL [options]``."""
    return [sys.executable, "-m", "nanohubmcp", "bridge", url, *options]


@contextlib.contextmanager
def served(app: Path | str, **options: Any) -> Iterator[str]:
    """Load an app file's ``server`` in this process and serve it on 127.0.0.1:<free port>;
    yields its base URL."""
    from nanohubmcp.nanohub.child import load_app

    server = load_app(app)
    server.start(host="127.0.0.1", port=0, **options)
    try:
        assert server.url is not None
        yield server.url
    finally:
        server.stop()
