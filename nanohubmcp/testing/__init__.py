"""Clients for testing an ``MCPServer`` in the same process, without sockets.

Every client here talks to the server through the same connection seam as stdio and HTTP
(:mod:`nanohubmcp.transports.memory`): the call pipeline (middleware, per-tool scopes, argument
schemas), sessions, progress, log messages, elicitation, sampling, roots and tasks behave as for a
client on the wire. The server need not be started.

- :class:`MemoryClient` (``async with``) and :func:`in_memory` (``with``, for synchronous tests):
  a small client of this package, no dependency; results are the JSON a wire client reads.
- :func:`client_session` and :func:`memory_streams`: the official ``mcp`` SDK's
  ``ClientSession`` / ``Client`` over in-memory streams, so tests use the client API of production
  (needs ``pip install mcp``; imported only when called).

This module is imported only when a test imports it: ``import nanohubmcp`` does not load it.

Example:
    ```python
    from nanohubmcp.testing import in_memory

    def test_add():
        with in_memory(server) as client:
            assert client.call_tool("add", {"a": 1, "b": 2})["structuredContent"] == {"result": 3}
    ```

Source: MCP 2025-11-25, Basic § Lifecycle, § Transports; Server § Tools, Resources, Prompts;
Client § Elicitation, Sampling, Roots; MCP 2026-07-28, Basic § Versioning (stateless requests,
``input_required`` results).
"""

from __future__ import annotations

from .client import MemoryClient, RpcError
from .official import client_session, memory_streams
from .sync import SyncMemoryClient, in_memory

__all__ = ["MemoryClient", "RpcError", "SyncMemoryClient", "client_session", "in_memory", "memory_streams"]
