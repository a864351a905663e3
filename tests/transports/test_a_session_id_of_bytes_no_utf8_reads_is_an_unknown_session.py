"""``POST /messages/?session_id=%ff%fe`` (bytes that are not UTF-8; ``%e9`` alike) names no session the server
made: the route's unknown-session answer (404 with a JSON-RPC error, -32600), and its access-log line is
written. It was a 400 ``{"error": "Invalid unicode in session_id: ..."}`` (not JSON-RPC), and the access
log raised again while writing the line: "Uncaught exception in write_error", three chained tracebacks per
request, no line (trial31 S6). A real server over HTTP."""

from __future__ import annotations

import logging

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer

BODY = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'


@pytest.mark.parametrize("path", ["messages/?session_id=%ff%fe", "messages/?session_id=%e9", "?session_id=%ff"])
def test_the_route_answers_unknown_session(path: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="nanohubmcp.access")
    with serve(MCPServer("odd-ids")) as url:
        reply = httpx.post(url + path, content=BODY, timeout=10,
                           headers={"Content-Type": "application/json", "Accept": "application/json"})
    assert reply.status_code == 404, reply.text
    assert reply.json()["error"]["code"] == -32600
    assert reply.json()["error"]["message"].startswith("Unknown session_id")
    lines = [r.getMessage() for r in caplog.records if r.name == "nanohubmcp.access"]
    assert any(line.startswith("404 POST /") for line in lines), lines
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
