"""A POST body is buffered by Tornado when its ``Content-Length`` is within ``max_request_bytes``
and read in pieces otherwise (a chunked body, a length over the limit or malformed); both ways
keep every guard: 413 before an oversized body is buffered, the same connection serving the
next request after a refused body was read and dropped, and the slow-body deadline.

Source: RFC 9110 § 15.5.14 (413); RFC 9112 § 6 (message body length), § 9.6 (tear-down).
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest
from raw_http import read_reply
from support import serve
from tornado.httputil import HTTPHeaders

from nanohubmcp import MCPServer
from nanohubmcp.transports import http_server
from nanohubmcp.transports.content_length import buffered_length

LIMIT = 32 * 1024


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def served() -> MCPServer:
    server = MCPServer("bodies")
    server.tool()(add)
    return server


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serve(served(), max_request_bytes=LIMIT) as base:
        yield int(base.rsplit(":", 1)[1].strip("/"))


def post_head(path: str, framing: bytes) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n".encode()
            + framing + b"\r\n")


def ping(size: int) -> bytes:
    """A ping request padded with spaces to exactly ``size`` bytes."""
    message = b'{"jsonrpc":"2.0","id":"p","method":"ping"}'
    return message + b" " * (size - len(message))


def chunked(body: bytes, piece: int = 8192) -> bytes:
    parts = [b"%x\r\n%s\r\n" % (len(body[i:i + piece]), body[i:i + piece]) for i in range(0, len(body), piece)]
    return b"".join(parts) + b"0\r\n\r\n"


@pytest.mark.parametrize(("headers", "expected"), [
    ({}, 0),  # no body at all
    ({"Content-Length": "0"}, 0),
    ({"Content-Length": "120"}, 120),
    ({"Content-Length": str(LIMIT)}, LIMIT),  # the limit itself is allowed
    ({"Content-Length": str(LIMIT + 1)}, None),
    ({"Transfer-Encoding": "chunked"}, None),
    ({"Transfer-Encoding": "chunked", "Content-Length": "10"}, None),
    ({"Content-Length": "-1"}, None),
    ({"Content-Length": "1e3"}, None),
    ({"Content-Length": "12, 12"}, None),
    ({"Content-Length": "\uff11\uff12"}, None),  # fullwidth digits: isdigit() but not a length
])
def test_only_a_plain_length_within_the_limit_is_buffered(headers: dict[str, str], expected: int | None) -> None:
    assert buffered_length(HTTPHeaders(headers), LIMIT) == expected


def test_the_limit_itself_is_served_one_byte_more_is_413_and_the_connection_serves_on(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        for path in ("/mcp", "/"):
            sock.sendall(post_head(path, b"Content-Length: %d\r\n" % LIMIT) + ping(LIMIT))
            status, _, body = read_reply(sock)
            assert (status, json.loads(body)["result"]) == (200, {})
            # Over the limit by one byte: the streamed handler refuses it, reads it and drops it.
            sock.sendall(post_head(path, b"Content-Length: %d\r\n" % (LIMIT + 1)) + ping(LIMIT + 1))
            status, headers, body = read_reply(sock)
            assert status == 413
            assert f"the limit is {LIMIT} bytes" in json.loads(body)["error"]["message"]
            assert headers.get("connection") != "close"
        # ... and the same connection answers the next request, buffered again.
        sock.sendall(post_head("/mcp", b"Content-Length: 100\r\n") + ping(100))
        assert read_reply(sock)[0] == 200


@pytest.mark.parametrize("path", ["/mcp", "/tools/add"])
def test_a_chunked_body_over_the_limit_is_413_and_the_connection_serves_on(port: int, path: str) -> None:
    body = b'{"a": 1, "b": 2, "pad": "' + b"x" * LIMIT + b'"}'
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(post_head(path, b"Transfer-Encoding: chunked\r\n") + chunked(body))
        status, _, answer = read_reply(sock)
        assert status == 413
        error = json.loads(answer)["error"]
        assert f"the limit is {LIMIT} bytes" in (error if isinstance(error, str) else error["message"])
        # A chunked body within the limit on the same connection is served.
        sock.sendall(post_head("/mcp", b"Transfer-Encoding: chunked\r\n") + chunked(ping(3 * 8192 + 5)))
        status, _, answer = read_reply(sock)
        assert (status, json.loads(answer)["result"]) == (200, {})


def test_the_413_is_the_same_whether_the_length_is_declared_or_the_body_is_chunked(port: int) -> None:
    answers = []
    for framing, body in ((b"Content-Length: %d\r\n" % (LIMIT + 10), ping(LIMIT + 10)),
                          (b"Transfer-Encoding: chunked\r\n", chunked(ping(LIMIT + 10)))):
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(post_head("/mcp", framing) + body)
            status, headers, answer = read_reply(sock)
            answers.append((status, headers["content-type"], answer))
    assert answers[0] == answers[1]
    assert answers[0][0] == 413


@pytest.mark.parametrize("framing", ["length", "chunked"])
def test_a_body_that_stops_midway_gets_408_and_loses_its_connection_while_others_are_served(
        monkeypatch: pytest.MonkeyPatch, framing: str) -> None:
    # The production value is 30 s; a shorter one keeps the test quick, the mechanism is the same.
    monkeypatch.setattr(http_server, "BODY_TIMEOUT", 1.0)
    with serve(served(), max_request_bytes=LIMIT) as base:
        port = int(base.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port)) as stalled:
            body = ping(200)
            if framing == "length":
                stalled.sendall(post_head("/mcp", b"Content-Length: 200\r\n") + body[:80])
            else:
                stalled.sendall(post_head("/mcp", b"Transfer-Encoding: chunked\r\n") + chunked(body)[:90])
            started = time.monotonic()
            with socket.create_connection(("127.0.0.1", port)) as other:  # served meanwhile
                other.sendall(post_head("/mcp", b"Content-Length: 100\r\n") + ping(100))
                assert read_reply(other)[0] == 200
            assert read_reply(stalled, timeout=15)[0] == 408  # answered (trial57 F5: it was closed unanswered)
            stalled.settimeout(15)
            try:
                rest = stalled.recv(65536)
            except ConnectionResetError:
                rest = b""
            assert rest == b"", rest  # then closed
            assert time.monotonic() - started < 10
