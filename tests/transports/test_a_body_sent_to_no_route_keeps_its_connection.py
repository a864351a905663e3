"""A request with a body to a path no route serves: its 404 keeps the connection, or says it closes.

A fresh-user trial (trial61 F6): ``POST /tools/`` (or ``/nonexistent``, ``/tools``, ``/tools/echo/extra``) with
a body got its 404 before the body was read, then the server closed the connection without a
``Connection: close`` in the answer. A keep-alive client (httpx, ``requests``, an nginx upstream pool) sent its
next, valid request on that connection and met a reset or "Server disconnected" (about 1 in 4 in a loop); for
the official ``mcp`` client such a ``ReadError`` ends its session. ``POST /tools/nope`` (an unknown tool, read
first) kept its connection.

Now the 404 goes out, a body declared within ``max_request_bytes`` is read and dropped, and the connection
serves the next request; a body that is larger, chunked, or awaited with ``Expect: 100-continue`` is left unread
and the 404 says ``Connection: close`` (RFC 9112 § 9.6).
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx
import pytest
from raw_http import closes, port_of, read_reply
from support import serve

from nanohubmcp import MCPServer

TOKEN = "no-route-token-1234567"
BODY = b'{"a": 1, "b": 2}'


def build() -> MCPServer:
    server = MCPServer("noroute")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    return server


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serve(build(), token=TOKEN) as url:
        yield port_of(url)


def post(port: int, path: str, body: bytes = BODY, framing: str | None = None, extra: str = "") -> bytes:
    framing = framing if framing is not None else f"Content-Length: {len(body)}\r\n"
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
            f"Content-Type: application/json\r\n{framing}{extra}\r\n").encode() + body


@pytest.mark.parametrize("path", ["/tools/", "/nonexistent", "/tools", "/tools/add/extra"])
def test_a_small_body_to_no_route_is_read_and_the_connection_serves_the_next_request(port: int, path: str) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(post(port, path))
        status, headers, raw = read_reply(sock)
        assert status == 404
        assert json.loads(raw) == {"error": f"No route for POST {path}; see GET / for the endpoints"}
        assert "connection" not in headers
        sock.sendall(post(port, "/tools/add"))  # the next request on the same connection
        status, _, raw = read_reply(sock)
    assert status == 200
    assert json.loads(raw) == {"result": "3"}  # (REST answers the result's text)


def test_a_body_over_the_limit_to_no_route_gets_404_saying_close_at_once(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(post(port, "/nonexistent", b"{", framing=f"Content-Length: {64 << 20}\r\n"))
        status, headers, _ = read_reply(sock)  # the answer comes before the body (never sent)
        assert status == 404
        assert headers["connection"].lower() == "close"
        assert closes(sock)


@pytest.mark.parametrize("extra", ["Transfer-Encoding: chunked\r\n", "Expect: 100-continue\r\n"])
def test_a_chunked_or_awaited_body_to_no_route_gets_404_saying_close(port: int, extra: str) -> None:
    framing = "" if "chunked" in extra else f"Content-Length: {len(BODY)}\r\n"
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(post(port, "/nonexistent", b"", framing=framing, extra=extra))
        status, headers, _ = read_reply(sock)
        assert status == 404
        assert headers["connection"].lower() == "close"
        assert closes(sock)


def test_a_keep_alive_client_loses_no_request_after_such_a_404(port: int) -> None:
    failures: list[str] = []
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=10) as client:
        for round_ in range(40):
            missing = client.post("/tools/", json={"a": 1, "b": 2})
            assert missing.status_code == 404
            try:
                answer = client.post("/tools/add", json={"a": round_, "b": 1})
            except httpx.TransportError as exc:
                failures.append(f"round {round_}: {type(exc).__name__}: {exc}")
                continue
            assert answer.json() == {"result": str(round_ + 1)}
    assert failures == []


def test_a_request_without_a_body_to_no_route_still_keeps_its_connection(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(post(port, "/nonexistent", b"", framing=""))
        status, headers, _ = read_reply(sock)
        assert status == 404
        assert "connection" not in headers
        sock.sendall(post(port, "/tools/add"))
        assert read_reply(sock)[0] == 200


def request(port: int, method: str, path: str, framing: str, body: bytes = b"") -> bytes:
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
            f"{framing}\r\n").encode() + body


@pytest.mark.parametrize(("method", "path"), [("GET", "/openapi.json"), ("POST", "/openapi.json"), ("DELETE", "/mcp")])
def test_a_huge_body_on_a_route_that_reads_none_gets_413_saying_close(port: int, method: str, path: str) -> None:
    # (was: Tornado's bare "400 Bad Request", no body, no Connection header, then the close)
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request(port, method, path, f"Content-Length: {64 << 20}\r\n", b"{"))
        status, headers, raw = read_reply(sock)
        assert status == 413
        assert headers["connection"].lower() == "close"
        assert "Request body too large" in raw.decode()
        assert closes(sock)


def test_a_content_length_that_is_no_number_on_a_route_that_reads_none_gets_400_saying_close(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request(port, "GET", "/openapi.json", "Content-Length: 12abc\r\n", b"{"))
        status, headers, raw = read_reply(sock)
        assert status == 400
        assert headers["connection"].lower() == "close"
        assert "Invalid Content-Length" in raw.decode()


def test_a_small_body_on_a_route_that_reads_none_is_dropped_and_the_connection_kept(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request(port, "GET", "/openapi.json", f"Content-Length: {len(BODY)}\r\n", BODY))
        status, headers, _ = read_reply(sock)
        assert status == 200
        assert "connection" not in headers
        sock.sendall(post(port, "/tools/add"))
        assert read_reply(sock)[0] == 200
