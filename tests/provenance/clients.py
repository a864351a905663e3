"""The official ``mcp`` client with a bearer token, for the provenance tests."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any


@contextlib.asynccontextmanager
async def official(url: str, token: str) -> AsyncIterator[Any]:
    """An initialized ``mcp.ClientSession`` on ``url + "mcp"`` sending ``Authorization: Bearer <token>``."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}))
        streams = await stack.enter_async_context(streamable_http_client(url + "mcp", http_client=client))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await session.initialize()
        yield session
