"""``server.public_url`` is the public URL the server advertises, as the banner and the discovery documents
write it, and None once the server stopped.

Found by a fresh-user trial (trial38): the attribute returned the argument as given (``" http://x.org:00080/me"``)
while the banner and ``/.well-known/mcp.json`` wrote ``http://x.org:80/me/``, and kept it after ``stop()``.
"""

from __future__ import annotations

from support import serve
from transports.raw_http import Http

from nanohubmcp import MCPServer


def test_it_is_the_url_the_banner_and_the_discovery_document_write() -> None:
    server = MCPServer("advertised")
    with serve(server, public_url=" http://x.org:00080/me", quiet=True) as url, \
            Http(f"http://127.0.0.1:{server.port}/") as http:
        assert server.public_url == url == "http://x.org:80/me/"  # url: the banner's base (serving.banner)
        endpoints = [transport["endpoint"] for transport in http.request("GET", "/.well-known/mcp.json").json
                     ["transports"]]
        assert endpoints == [f"{server.public_url}mcp", f"{server.public_url}sse"]
    assert server.public_url is None


def test_it_is_none_without_one() -> None:
    server = MCPServer("local")
    with serve(server, quiet=True):
        assert server.public_url is None
