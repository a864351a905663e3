"""A body sent as ``multipart/form-data`` that Tornado could not parse as a form is the route's 415, in the
route's shape (a JSON-RPC error on ``/mcp``, ``/`` and the legacy POST; ``{"error": ...}`` over REST), as a
``text/plain`` body is: it was a 400 ``{"error": "Invalid body: Invalid multipart/form-data ..."}`` on every
route (trial31 S6's NIT). A real server over HTTP."""

from __future__ import annotations

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer

SAID = "Unsupported Media Type: the body was sent as multipart/form-data; send it as JSON with " \
       "'Content-Type: application/json'"


@pytest.mark.parametrize("path", ["mcp", "", "messages/?session_id=x", "tools/echo"])
def test_every_route_answers_415(path: str) -> None:
    server = MCPServer("forms")

    @server.tool()
    def echo(s: str) -> str:
        """Answer ``s``."""
        return s

    with serve(server) as url:
        reply = httpx.post(url + path, content=b'{"jsonrpc":"2.0","id":1,"method":"ping"}', timeout=10,
                           headers={"Content-Type": "multipart/form-data; boundary=x",
                                    "Accept": "application/json, text/event-stream"})
    assert reply.status_code == 415, reply.text
    body = reply.json()
    assert body == {"error": SAID} if path.startswith("tools/") else body["error"] == {"code": -32600, "message": SAID}
