"""Issue 13 § 8: oversized or slow requests get an answer a client can read, and quickly.

A 70 KB header block closed the connection without a word (now 431 with a JSON body); a
client trickling its headers held a connection for 300 s (now seconds); and a client that
sent a too-large body before reading got a connection reset instead of the 413 (now the 413
is sent at once and the rest of the body is read and dropped, so it is still there to read).

Source: RFC 6585 § 5 (431); RFC 9110 § 15.5.14 (413); RFC 9112 § 9.6 (tear-down).
"""

from __future__ import annotations

import json
import socket
import time

import pytest
from raw_http import read_reply
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.serving import runner
from nanohubmcp.transports import http_server


def build() -> MCPServer:
    server = MCPServer("limits")

    @server.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    return server


def test_a_70_kb_header_block_gets_431_with_a_json_body() -> None:
    with serve(build()) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port)) as sock:
            filler = "x" * 70_000
            sock.sendall(f"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: {filler}\r\n\r\n".encode())
            status, headers, body = read_reply(sock)
        assert status == 431
        assert headers["content-type"] == "application/json"
        error = json.loads(body)["error"]
        assert error["code"] == -32600
        assert f"the limit is {http_server.MAX_HEADER_BYTES}" in error["message"]
        # An ordinary request on a new connection is unaffected.
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert read_reply(sock)[0] == 200


def test_the_header_block_is_measured_to_the_byte_repeated_fields_each_counted() -> None:
    # "name: value\r\n" per field line, the request line and the blank line: a block of exactly
    # MAX_HEADER_BYTES is served, one byte more is refused with its size named (a repeated field
    # counts each of its lines).
    line = "GET /openapi.json HTTP/1.1"
    fixed = len(line) + 2 + len("Host: 127.0.0.1") + 2 + 2 * len("X-Filler: \r\n") + 100

    def ask(sock: socket.socket, block: int) -> tuple[int, bytes]:
        second = "y" * (block - fixed)
        sock.sendall(f"{line}\r\nHost: 127.0.0.1\r\nX-Filler: {'x' * 100}\r\nX-Filler: {second}\r\n\r\n".encode())
        status, _headers, body = read_reply(sock)
        return status, body

    with serve(build()) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port)) as sock:
            assert ask(sock, http_server.MAX_HEADER_BYTES)[0] == 200
        with socket.create_connection(("127.0.0.1", port)) as sock:
            status, body = ask(sock, http_server.MAX_HEADER_BYTES + 1)
        assert status == 431
        assert f"the headers take {http_server.MAX_HEADER_BYTES + 1} bytes" in json.loads(body)["error"]["message"]


def test_headers_that_trickle_in_lose_the_connection_within_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    assert http_server.HEADER_TIMEOUT <= 30  # seconds, not the 300 s it was
    monkeypatch.setattr(runner, "HEADER_TIMEOUT", 1.0)
    with serve(build()) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.settimeout(10)
            started = time.monotonic()
            closed = False
            for piece in (b"GET /openapi.json HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n", b"X-Slow: 1\r\n") * 20:
                try:
                    sock.sendall(piece)
                    time.sleep(0.2)
                except OSError:
                    closed = True
                    break
            if not closed:
                sock.settimeout(5)
                closed = sock.recv(1024) == b""
        assert closed
        assert time.monotonic() - started < 8


def test_a_client_that_sends_its_whole_too_large_body_first_still_reads_the_413() -> None:
    limit = 1 << 20
    with serve(build(), max_request_bytes=limit) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        body = b'{"pad": "' + b"x" * (limit + limit // 2) + b'"}'
        for path in ("/mcp", "/tools/echo"):
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.sendall(
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                status, _, answer = read_reply(sock)
                assert status == 413, path
                error = json.loads(answer)["error"]
                text = error if isinstance(error, str) else error["message"]
                assert f"the limit is {limit} bytes" in text
                # The connection is still good for the next request (the body was read and dropped).
                sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert read_reply(sock)[0] == 200
