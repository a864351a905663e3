"""``/healthz`` and ``/readyz`` sent a body answer as every route that reads none does (docs/api/http.md, "A body on
a route that reads none"): one declared over twice ``max_request_bytes`` gets 413 naming the limit, and a
``Content-Length`` that is no number 400, both before the body and with ``Connection: close``; a smaller body is
read and dropped and the connection serves the next request.

The probes are plain Tornado handlers, outside the body handling of the other routes: such a body got Tornado's
bare ``400 Bad Request`` (no reason, no ``Connection: close``), or was buffered whole, up to the connection's bound
(review r37)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from raw_http import closes, port_of, read_reply
from support import serve

from nanohubmcp import MCPServer

LIMIT = 64 * 1024  # max_request_bytes
TOO_LARGE = f"Request body too large: the limit is {LIMIT} bytes (max_request_bytes)\n"


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serve(MCPServer("probed"), max_request_bytes=LIMIT) as url:
        yield port_of(url)


def request(method: str, path: str, framing: str, body: bytes = b"") -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{framing}\r\n".encode() + body


@pytest.mark.parametrize("declared", [2 * LIMIT + 1, 64 << 20], ids=["just over the bound", "64 MiB"])
@pytest.mark.parametrize(("method", "path"), [("GET", "/healthz"), ("GET", "/readyz"), ("POST", "/healthz")])
def test_a_huge_body_gets_413_naming_the_limit_and_saying_close(port: int, method: str, path: str,
                                                                declared: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request(method, path, f"Content-Length: {declared}\r\n", b"x"))
        status, headers, raw = read_reply(sock)  # (before: "HTTP/1.1 400 Bad Request" and nothing else)
        assert (status, raw.decode()) == (413, TOO_LARGE)
        assert headers["connection"].lower() == "close"
        assert headers["content-type"].startswith("text/plain")
        assert headers["cache-control"] == "no-store"
        assert closes(sock)


def test_a_content_length_that_is_no_number_gets_400_saying_close(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request("GET", "/healthz", "Content-Length: 12abc\r\n", b"x"))
        status, headers, raw = read_reply(sock)
        assert (status, raw.decode()) == (400, "Invalid Content-Length header\n")
        assert headers["connection"].lower() == "close"
        assert closes(sock)


@pytest.mark.parametrize(("method", "answer"), [("GET", b"ok\n"), ("POST", b"Method Not Allowed\n")])
@pytest.mark.parametrize("framing", ["Content-Length: 5\r\n", "Transfer-Encoding: chunked\r\n"])
def test_a_small_body_is_dropped_and_the_connection_serves_the_next_request(port: int, method: str, answer: bytes,
                                                                          framing: str) -> None:
    body = b"hello" if "Length" in framing else b"5\r\nhello\r\n0\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request(method, "/healthz", framing, body))
        status, headers, raw = read_reply(sock)
        assert (status, raw) == (200 if method == "GET" else 405, answer)
        assert "connection" not in headers
        sock.sendall(request("GET", "/readyz", ""))
        assert read_reply(sock)[::2] == (200, b"ready\n")
