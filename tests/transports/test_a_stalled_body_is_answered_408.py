"""A request body that stalls past the body timer is answered ``408 Request Timeout`` with
``Connection: close`` and a JSON body saying why, then its connection is closed (trial57 F5: the
connection was closed with no answer at all, so a client's or a proxy's log could not say why).
After a ``100 Continue`` the 408 is still the final answer; a body that arrives in time is served.

Source: RFC 9110 § 15.5.9 (408 Request Timeout).
"""

from __future__ import annotations

import json
import socket
import time

import pytest
from raw_http import closes, port_of, read_reply
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.transports import http_server


def build() -> MCPServer:
    server = MCPServer("stall")

    @server.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    return server


def stall(port: int, path: str, declared: int, sent: bytes, *, expect: bool = False) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {declared}\r\n")
    sock.sendall(head.encode() + (b"Expect: 100-continue\r\n" if expect else b"") + b"\r\n")
    if expect:
        assert sock.recv(1024).startswith(b"HTTP/1.1 100"), "no 100 Continue"
    sock.sendall(sent)
    return sock


@pytest.mark.parametrize(("path", "declared", "sent", "expect"), [
    ("/mcp", 100, b'{"jsonrpc":', False),
    ("/tools/echo", 5_000_000, b'{"text": "' + b"x" * 1_000_000, False),  # a streamed body
    ("/tools/echo", 1_000, b"", True),
])
def test_a_stalled_body_gets_408_and_its_connection_closes(monkeypatch: pytest.MonkeyPatch, path: str,
                                                           declared: int, sent: bytes, expect: bool) -> None:
    monkeypatch.setattr(http_server, "BODY_TIMEOUT", 1.0)  # 30 s in production; the mechanism is the same
    with serve(build()) as url:
        started = time.monotonic()
        with stall(port_of(url), path, declared, sent, expect=expect) as sock:
            status, headers, body = read_reply(sock, timeout=10)
            assert status == 408, (status, headers, body)
            assert headers["connection"].lower() == "close"
            assert "did not arrive within 1 s" in json.loads(body)["error"]["message"]
            assert closes(sock)
        assert time.monotonic() - started < 8


def test_a_body_in_time_is_still_served(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_server, "BODY_TIMEOUT", 1.0)
    with serve(build()) as url:
        payload = json.dumps({"text": "hi"}).encode()
        with stall(port_of(url), "/tools/echo", len(payload), payload[:5]) as sock:
            # part of the body, then the rest
            sock.sendall(payload[5:])
            status, _, body = read_reply(sock, timeout=10)
        assert status == 200, body
        assert "hi" in body.decode()
