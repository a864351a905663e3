"""A path prefix is served in every spelling RFC 3986 § 6.2.2 calls the same, behind a real nginx that forwards
the path as the client wrote it.

Found by a fresh-user trial (trial38 T8): ``--path-prefix /%41`` was served only at the literal ``/%41/...``
(``/A/...`` was 404), though ``%41`` is the unreserved ``A``. The prefix is now written once, normalized
(``/weber/%41pp`` is ``/weber/App``), and matched in either spelling: nginx, playing a hub proxy that does not
strip the path (``proxy_pass`` without a URI), matches its ``location /weber/App/`` on the decoded path and passes
the client's own spelling on, so the server receives ``/weber/%41pp/mcp`` from one client and ``/weber/App/mcp``
from another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from nginx_weber import Nginx, PortTaken, WeberRoute, free_port
from proxy_support import get_json, request
from support import mcp_client

from nanohubmcp import MCPServer

ROUTE = "/weber/App/"


@pytest.fixture
def behind_nginx(nginx_executable: str, tmp_path: Path) -> Iterator[tuple[MCPServer, Nginx]]:
    server = MCPServer("spelled")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    server.start(host="127.0.0.1", port=0, path_prefix="/weber/%41pp/", quiet=True)
    assert server.port is not None
    try:
        for attempt in range(3):
            (tmp_path / str(attempt)).mkdir()
            nginx = Nginx(nginx_executable, tmp_path / str(attempt), WeberRoute(ROUTE, server.port, strip=False),
                          free_port())
            try:
                nginx.start()
            except PortTaken:
                continue
            try:
                yield server, nginx
            finally:
                nginx.stop()
            return
        raise RuntimeError("no free port for nginx after 3 attempts")
    finally:
        server.stop()


@pytest.mark.parametrize("spelling", ["/weber/App/", "/weber/%41pp/", "/weber/%41%70%70/", "/w%65ber/App/"])
def test_every_spelling_reaches_the_server(behind_nginx: tuple[MCPServer, Nginx], spelling: str) -> None:
    server, nginx = behind_nginx
    assert server.url == f"http://127.0.0.1:{server.port}/weber/App/"  # the prefix, normalized once
    status, _, body = request("GET", f"{nginx.origin}{spelling}healthz")
    assert status == 200, body
    endpoint = get_json(f"{nginx.origin}{spelling}.well-known/mcp.json")["transports"][0]["endpoint"]
    assert endpoint == f"{nginx.origin}{ROUTE}mcp"  # advertised in the normal spelling

    async def call() -> str:
        async with mcp_client(f"{nginx.origin}{spelling}mcp") as client:
            return str((await client.call_tool("add", {"a": 2, "b": 3})).content[0].text)

    assert asyncio.run(asyncio.wait_for(call(), 30)) == "5"


def test_another_path_is_not_the_prefix(behind_nginx: tuple[MCPServer, Nginx]) -> None:
    server, _ = behind_nginx
    for other in ("/weber/app/", "/weber/%61pp/", "/weber/App%2F/"):  # a path is case-sensitive; %2F is no '/'
        status, _, _ = request("GET", f"http://127.0.0.1:{server.port}{other}healthz")
        assert status == 404, other
