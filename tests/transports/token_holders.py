"""A server with one ``echo`` tool and bearer tokens ``<name>-token`` for a few principals, for the tests of
what one principal may hold of the server (the bodies being received, the answers left unread)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from nanohubmcp import MCPServer

TOKENS = {f"{name}-token": name for name in ("alice", "bob", "carol", "dave", "erin", "frank")}


def build(check: Callable[[str], Any] | None = None) -> MCPServer:
    """The server, its tokens checked by ``check`` (None: no authorization)."""
    server = MCPServer("bodyshare", auth=check)

    @server.tool()
    def echo(text: str) -> int:
        """How long the text is."""
        return len(text)

    return server


def sync_check(token: str) -> str | None:
    return TOKENS.get(token)


async def async_check(token: str) -> str | None:
    await asyncio.sleep(0)
    return TOKENS.get(token)
