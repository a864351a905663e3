"""The server the in-process benchmarks serve ``tools/call`` to through the connection seam.

``bench/pipeline_cost.py`` (CPU time a call) and ``bench/pipeline_opcodes.py`` (opcodes a call)
measure the same server: one ``async def add(a, b)`` tool and ``layers`` pass-through middleware.
"""

from __future__ import annotations

from typing import Any

from nanohubmcp import MCPServer


def adding_server(name: str, layers: int, **options: Any) -> MCPServer:
    """``MCPServer(name, **options)`` with the tool ``add`` and ``layers`` layers that pass every
    request on (``return await call_next(request)``); none added when ``layers`` is 0, so it also
    builds a server of a version before ``add_middleware``."""
    server = MCPServer(name, **options)

    @server.tool()
    async def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    for _ in range(layers):

        async def passthrough(request: Any, call_next: Any) -> Any:
            return await call_next(request)

        server.add_middleware(passthrough)
    return server
