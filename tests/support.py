"""Shared test helpers (import with ``from support import serve, mcp_client``).

Real servers on loopback ports, and the official ``mcp`` client.

``serve(server, **options)`` starts an ``MCPServer`` in the background on 127.0.0.1 with a free
port (bound by the server itself, no probe-then-close race) and stops it afterwards.
``mcp_client(url)`` is an async context manager yielding an initialized official
``mcp.ClientSession`` over Streamable HTTP (``transport="sse"`` for legacy SSE).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

from nanohubmcp import MCPServer


@contextlib.contextmanager
def serve(server: MCPServer, **options: Any) -> Iterator[str]:
    """Serve ``server`` on 127.0.0.1:<free port>; yields the base URL (trailing slash)."""
    options.setdefault("host", "127.0.0.1")
    options.setdefault("port", 0)
    server.start(**options)
    try:
        assert server.url is not None
        yield server.url
    finally:
        server.stop()


@contextlib.asynccontextmanager
async def mcp_client(url: str, *, transport: str = "http", **session_options: Any) -> AsyncIterator[Any]:
    """An initialized official ``mcp`` ClientSession connected to ``url``."""
    from mcp import ClientSession

    async with contextlib.AsyncExitStack() as stack:
        if transport == "sse":
            from mcp.client.sse import sse_client

            streams = await stack.enter_async_context(sse_client(url, timeout=10, sse_read_timeout=30))
        else:
            from mcp.client.streamable_http import streamable_http_client

            streams = await stack.enter_async_context(streamable_http_client(url))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1], **session_options))
        await session.initialize()
        yield session

