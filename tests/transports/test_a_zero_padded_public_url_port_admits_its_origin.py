"""A public URL whose port is written with leading zeros is taken as that port's number.

Found by a fresh-user trial (trial38 T2): ``--public-url http://x.org:00080`` was accepted, but a browser's
``Origin: http://x.org`` for it (port 80, the default) then got 403, where ``http://x.org:80`` gave 200; the
banner advertised ``:00080``.
"""

from __future__ import annotations

import pytest
from support import serve
from transports.raw_http import Http

from nanohubmcp import MCPServer
from nanohubmcp.transports.public_url import checked_public_url

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def build() -> MCPServer:
    server = MCPServer("padded")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    return server


@pytest.mark.parametrize(("public_url", "origin", "advertised"), [
    ("http://x.org:00080", "http://x.org", "http://x.org:80/"),
    ("https://x.org:0443", "https://x.org", "https://x.org:443/"),
    ("http://x.org:08080/", "http://x.org:8080", "http://x.org:8080/"),
])
def test_the_browsers_origin_for_it_is_served(public_url: str, origin: str, advertised: str) -> None:
    server = build()
    with serve(server, public_url=public_url) as url, Http(f"http://127.0.0.1:{server.port}/") as http:
        assert url == advertised
        headers = {"Origin": origin, "Content-Type": "application/json"}
        assert http.request("POST", "/mcp", INIT, headers).status == 200
        assert http.request("POST", "/mcp", INIT, {**headers, "Origin": "http://y.org"}).status == 403


def test_the_port_is_written_as_its_number() -> None:
    assert checked_public_url("http://x.org:00080/a") == "http://x.org:80/a/"
    assert checked_public_url("http://[::1]:0080") == "http://[::1]:80/"
    assert checked_public_url("http://x.org:8080") == "http://x.org:8080/"
