"""An HTTP/1.0 request without ``Host`` (HTTP/1.0 does not require one) is told URLs naming the address
and port it reached: the server info's endpoints, the discovery document, the OpenAPI document's server and
a 401's ``resource_metadata`` say ``http://127.0.0.1:<port>/...``. They said ``http://127.0.0.1/mcp``
(Tornado's stand-in host, without a port: port 80), which no client could reach. An HTTP/1.1 request
without ``Host`` is still 400, and one with ``Host`` is told that host.

A fresh-user trial found the port missing (trial25 F2).
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from typing import Any

from raw_http import read_reply
from support import serve

from nanohubmcp import MCPServer


def build() -> MCPServer:
    server = MCPServer("hostless")

    @server.tool()
    def echo(s: str) -> str:
        """Echo the text."""
        return s

    return server


def exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        return read_reply(sock)


def urls(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from urls(item)
    elif isinstance(value, list):
        for item in value:
            yield from urls(item)
    elif isinstance(value, str) and value.startswith("http"):
        yield value


def test_documents_name_the_port_reached_when_no_host_was_sent() -> None:
    with serve(build()) as url:
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        here = f"http://127.0.0.1:{port}/"
        for path in ("/", "/.well-known/mcp.json", "/openapi.json"):
            status, _, body = exchange(port, f"GET {path} HTTP/1.0\r\n\r\n".encode())
            assert status == 200, (path, body)
            found = list(urls(json.loads(body)))
            assert found, (path, body)
            assert all(u.startswith(here) or u == here.rstrip("/") for u in found), (path, found)

        status, _, body = exchange(port, b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
        assert status == 400  # HTTP/1.1 requires Host
        status, _, body = exchange(port, f"GET / HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n"
                                   .encode())
        assert json.loads(body)["endpoints"]["mcp"] == f"http://localhost:{port}/mcp"


def test_a_401_points_at_its_metadata_on_the_port_reached() -> None:
    with serve(build(), token="t-0123456789abcdef") as url:
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        status, headers, _ = exchange(port, b"POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\n"
                                            b"Content-Length: 2\r\n\r\n{}")
        assert status == 401
        metadata = re.search(r'resource_metadata="([^"]+)"', headers["www-authenticate"])
        assert metadata is not None, headers
        assert metadata.group(1).startswith(f"http://127.0.0.1:{port}/"), metadata.group(1)
