"""``nanohubmcp bridge URL --cookie name=value`` carries a desktop client's session to a server
behind a weber-like nginx that strips the weber path and refuses requests without the session's
cookie (403); without ``--cookie`` the client gets an error naming the 403, not a hang."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nginx_weber import Nginx, PortTaken, WeberRoute, free_port
from proxy_support import WEBER_PATH

from nanohubmcp import MCPServer

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]
COOKIE = ("weber_auth", "s3cret-value")


def build() -> MCPServer:
    server = MCPServer("behind-weber")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    return server


@contextlib.contextmanager
def behind_weber(nginx_executable: str, workdir: Path) -> Iterator[str]:
    """The server behind nginx; yields the public MCP endpoint (weber URL + ``mcp``)."""
    server = build()
    server.start(host="127.0.0.1", port=0)
    try:
        assert server.port is not None
        for attempt in range(3):
            nginx = Nginx(nginx_executable, workdir, WeberRoute(WEBER_PATH, server.port, strip=True, cookie=COOKIE),
                          free_port())
            try:
                nginx.start()
                break
            except PortTaken:
                if attempt == 2:
                    raise
        try:
            yield nginx.public_url + "mcp"
        finally:
            nginx.stop()
    finally:
        server.stop()


def bridge(url: str, *options: str) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-m", "nanohubmcp", "bridge", url, *options])


async def test_with_the_cookie_the_session_works_and_without_it_the_403_is_named(
        nginx_executable: str, tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    with behind_weber(nginx_executable, tmp_path) as url:
        cookie = f"{COOKIE[0]}={COOKIE[1]}"
        async with stdio_client(bridge(url, "--cookie", cookie)) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            assert [tool.name for tool in (await session.list_tools()).tools] == ["add"]
            assert (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5.0"

        async with stdio_client(bridge(url)) as (read, write), ClientSession(read, write) as session:
            with pytest.raises(MCPError, match="HTTP 403"):
                await session.initialize()
