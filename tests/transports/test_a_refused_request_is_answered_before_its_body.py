"""A request the server will refuse is answered right after its headers, before its body is kept.

A client without a valid bearer token (or with a refused ``Origin`` / ``Host``) used to make the
server buffer its whole body — up to ``max_request_bytes`` per connection, with no bound over
all connections — before the 401; an ``Expect: 100-continue`` got ``100 Continue`` instead of
the 401, and a body trickled with a wrong token held its connection for the whole body
timeout. Now the refusal goes out as soon as the headers are read, ``Connection: close``, the
body unread; and the bodies being received across all connections are bounded by
``max_buffered_bytes`` (503 + ``Retry-After`` beyond it).

Source: RFC 9110 § 10.1.1 (Expect: a server may answer the final status instead of 100);
RFC 6750 § 3 (401); RFC 9110 § 15.6.4 (503, Retry-After § 10.2.3).
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest
from raw_http import read_reply
from support import serve

from nanohubmcp import MCPServer

TOKEN = "early-refusal-token"
DECLARED = 8 * 1024 * 1024
"""The body length the clients below declare (and never send in full)."""


def build() -> MCPServer:
    server = MCPServer("early")

    @server.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    return server


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serve(build(), token=TOKEN) as url:
        yield int(url.rsplit(":", 1)[1].strip("/"))


def head(path: str, length: int, extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n{extra}\r\n").encode()


def refused_after_headers(port: int, request: bytes, first_body_bytes: bytes = b"") -> tuple[int, dict[str, str]]:
    """Send the headers (and a few body bytes), never the rest: the answer must come anyway,
    and the server must then close the connection (the body stays unread)."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request + first_body_bytes)
        status, headers, _ = read_reply(sock, timeout=10)
        sock.settimeout(10)
        try:
            closed = sock.recv(65536) == b""
        except ConnectionResetError:
            closed = True
        assert closed, "the connection stays open waiting for a body nobody will read"
        return status, headers


@pytest.mark.parametrize("path", ["/mcp", "/", "/tools/echo", "/messages/?session_id=x"])
def test_no_token_is_answered_401_before_the_body(port: int, path: str) -> None:
    status, headers = refused_after_headers(port, head(path, DECLARED), b'{"jsonrpc":')
    assert status == 401
    assert headers["www-authenticate"].startswith("Bearer resource_metadata=")
    assert headers["connection"].lower() == "close"


def test_a_wrong_token_is_answered_401_before_the_body(port: int) -> None:
    status, headers = refused_after_headers(port, head("/mcp", DECLARED, "Authorization: Bearer wrong\r\n"), b"{")
    assert status == 401
    assert 'error="invalid_token"' in headers["www-authenticate"]


def test_expect_100_continue_without_a_token_gets_the_401_not_a_continue(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head("/mcp", DECLARED, "Expect: 100-continue\r\n"))
        status, _, _ = read_reply(sock, timeout=10)
    assert status == 401


def test_a_trickled_body_with_a_wrong_token_is_not_held() -> None:
    with serve(build(), token=TOKEN) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(head("/mcp", 1000, "Authorization: Bearer wrong\r\n") + b"{")
            status, _, _ = read_reply(sock, timeout=10)
        assert status == 401
        assert time.monotonic() - started < 10  # was: the 30 s body timeout


def test_a_refused_origin_is_answered_403_before_the_body() -> None:
    with serve(build()) as url:  # no authorization: the Origin check alone
        port = int(url.rsplit(":", 1)[1].strip("/"))
        status, _ = refused_after_headers(port, head("/mcp", DECLARED, "Origin: https://evil.example\r\n"), b"{")
    assert status == 403


def test_a_valid_token_still_gets_its_body_read_and_answered(port: int) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}).encode()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head("/mcp", len(body), f"Authorization: Bearer {TOKEN}\r\nExpect: 100-continue\r\n"))
        sock.settimeout(10)
        assert sock.recv(100).startswith(b"HTTP/1.1 100")
        sock.sendall(body)
        status, _, reply = read_reply(sock, timeout=10)
    assert status == 200
    assert json.loads(reply)["id"] == 7


def test_bodies_being_received_are_bounded_across_connections() -> None:
    limit = 1 << 20
    with serve(build(), token=TOKEN, max_request_bytes=limit, max_buffered_bytes=2 * limit,
               max_buffered_bytes_per_principal=2 * limit) as url:  # one token: the whole bound is its share
        port = int(url.rsplit(":", 1)[1].strip("/"))
        auth = f"Authorization: Bearer {TOKEN}\r\n"
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * (limit - 100)}})
        data = body.encode()
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        try:
            for sock in slow:  # two bodies of 1 MiB on their way in: the budget is taken
                # Each waits for its 100 Continue (its body counted) before the next: sent at once, the
                # server could read a probe below before the second, which was then refused (ci35).
                sock.sendall(head("/mcp", len(data), auth + "Expect: 100-continue\r\n"))
                sock.settimeout(10)
                assert sock.recv(65536).startswith(b"HTTP/1.1 100")
                sock.sendall(data[:10])
            # The third is refused at once, with a Retry-After (once the two are being read: until
            # then the server answers the third's Expect with 100 Continue).
            deadline = time.monotonic() + 10
            while True:
                with socket.create_connection(("127.0.0.1", port)) as sock:
                    sock.sendall(head("/mcp", len(data), auth + "Expect: 100-continue\r\n"))
                    sock.settimeout(10)
                    first = sock.recv(65536)
                    if not first.startswith(b"HTTP/1.1 100"):
                        status, headers, reply = read_reply(_Replay(first, sock), timeout=10)  # type: ignore[arg-type]
                        break
                assert time.monotonic() < deadline, "the two bodies on their way in never took the budget"
            assert status == 503
            assert int(headers["retry-after"]) >= 1
            assert "max_buffered_bytes" in json.loads(reply)["error"]["message"]
            slow[0].sendall(data[10:])  # one body completes: its bytes are free again
            assert read_reply(slow[0], timeout=10)[0] == 200
        finally:
            for sock in slow:
                sock.close()
        # Once the other connection is gone too, a full-size body is accepted.
        deadline = time.monotonic() + 10
        while True:
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.sendall(head("/mcp", len(data), auth) + data)
                status = read_reply(sock, timeout=10)[0]
            if status == 200 or time.monotonic() > deadline:
                break
        assert status == 200


class _Replay:
    """A socket whose first ``recv`` returns bytes already read."""

    def __init__(self, first: bytes, sock: socket.socket) -> None:
        self.first, self.sock = first, sock

    def settimeout(self, value: float) -> None:
        self.sock.settimeout(value)

    def recv(self, size: int) -> bytes:
        if self.first:
            data, self.first = self.first, b""
            return data
        return self.sock.recv(size)
