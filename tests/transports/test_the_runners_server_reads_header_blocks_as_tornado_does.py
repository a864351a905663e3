"""The runner's server reads a request's header block with ``str`` methods (``http_server.read_header_block``), to the
same start line and headers as Tornado's own reading, which it still hands every block that is not the usual
kind: Tornado accepts or refuses (400) what it did, with the same values. The usual block (an MCP client's)
enters no Tornado line parser at all: that is the ~150k instructions a request this saves.
"""

from __future__ import annotations

import asyncio
import random
import socket
import sys
import threading
from types import FrameType
from typing import Any

import pytest
import tornado.netutil
from tornado.http1connection import HTTP1Connection
from tornado.httputil import HTTPHeaders, HTTPInputError

from nanohubmcp import MCPServer
from nanohubmcp.transports import http_server
from nanohubmcp.transports.http_server import LimitedServer, read_header_block

SESSION = "8Rj3u0uHqkW2xC0Y8b1p7wQ0bVvKkXo9gkq3xJ4a1Zs"
USUAL = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8312\r\nContent-Type: application/json\r\n"
         b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"
         b"Mcp-Session-Id: " + SESSION.encode() + b"\r\nContent-Length: 98\r\n\r\n")


Read = tuple[str, list[tuple[str, str]], dict[str, str]] | str


def tornados(data: bytes) -> Read:
    """Tornado's own reading of ``data`` (its connection's method): the start line, every field line and every
    combined value; or ``"400"`` when it refuses the block."""
    try:
        start, headers = HTTP1Connection._parse_headers(None, data)  # type: ignore[arg-type]
    except HTTPInputError:
        return "400"
    return start, list(headers.get_all()), {name: headers[name] for name in headers}


def ours(data: bytes) -> Read:
    try:
        start, headers = read_header_block(data)
    except HTTPInputError:
        return "400"
    assert type(headers) is HTTPHeaders
    return start, list(headers.get_all()), {name: headers[name] for name in headers}


BLOCKS = [
    USUAL,
    b"GET / HTTP/1.1\r\n\r\n",  # no header line
    b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost:a\r\nX-Empty:\r\nX-Spaces:   \r\nX-Pad:  v  w  \r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\nX-Colon: a:b:c\r\nX-Odd: !#$%&'*+-.^_`|~\"()<>@,;=?[]{}\\/\r\n\r\n",
    b"GET / HTTP/1.1\r\ncontent-TYPE: x\r\nhost: a\r\n\r\n",  # names normalized as Tornado does
    b"GET / HTTP/1.1\r\nAccept: a\r\nAccept: b\r\nHost: a\r\n\r\n",  # a name twice: combined by Tornado
    b"GET / HTTP/1.1\r\nAccept: a\r\naccept: b\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\nX-Tab:\tv\t\r\n\r\n",  # a tab: Tornado's reading
    b"GET / HTTP/1.1\r\nHost: a\r\nX-Mid: a\tb\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\nX-Latin: caf\xe9\r\n\r\n",  # obs-text: Tornado's
    b"GET / HTTP/1.1\r\nHost: a\r\nX-Nbsp: \xa0v\xa0\r\n\r\n",
    b"GET / HTTP/1.1\nHost: a\n\n",  # bare LFs
    b"GET / HTTP/1.1\r\nHost: a\n\r\n",
    b"GET / HTTP/1.1\r\r\nHost: a\r\n\r\n",
    b"\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",  # a blank line before the request
    b"\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",  # obs-fold: refused
    b"GET / HTTP/1.1\r\n Host: a\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost : a\r\n\r\n",  # not a token
    b"GET / HTTP/1.1\r\nHo(st: a\r\n\r\n",
    b"GET / HTTP/1.1\r\n: a\r\n\r\n",
    b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\x00b\r\n\r\n",  # control characters
    b"GET / HTTP/1.1\r\nHost: a\x7fb\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\x0bb\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\n\r\nX: after\r\n\r\n",  # (never read so: Tornado's reading)
    b"GET / HTTP/1.1\r\nHost: a",
]


@pytest.mark.parametrize("data", BLOCKS, ids=range(len(BLOCKS)))
def test_a_block_reads_as_tornado_reads_it(data: bytes) -> None:
    assert ours(data) == tornados(data)


def test_random_blocks_read_as_tornado_reads_them() -> None:
    rng = random.Random(28)
    pieces = ["Host", "X-A", "x-a", "Accept", ":", ": ", " ", "\t", "v", "1", "-", "é", "\xa0", "\r", "\n", "\r\n",
              "\r\n", "\r\n", "\x00", "\x7f", "(", ",", "\"", "~"]
    refused = usual = 0
    for _ in range(3000):
        lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(0, 4))]
        data = ("POST /mcp HTTP/1.1\r\n" + "".join(line + "\r\n" for line in lines) + "\r\n").encode("latin1")
        assert ours(data) == tornados(data), data
        refused += tornados(data) == "400"
        usual += all(line.isascii() and line.isprintable() for line in lines)
    assert refused > 100  # (both ways were exercised)
    assert usual > 100


def test_the_usual_block_enters_no_tornado_line_parser() -> None:
    read_header_block(USUAL)  # (its names remembered as tokens)
    entered: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            entered.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        start, headers = read_header_block(USUAL)
    finally:
        sys.setprofile(None)
    assert start == "POST /mcp HTTP/1.1"
    assert headers["Mcp-Session-Id"] == SESSION
    assert not {"parse", "parse_line", "add", "_parse_headers"} & set(entered)


def test_the_names_remembered_are_bounded() -> None:
    http_server._KNOWN_NAMES.clear()
    for n in range(http_server.MAX_KNOWN_NAMES + 10):
        read_header_block(f"GET / HTTP/1.1\r\nX-{n}: v\r\n\r\n".encode())
    assert 0 < len(http_server._KNOWN_NAMES) <= http_server.MAX_KNOWN_NAMES
    long = "X-" + "a" * 100  # read as any other, checked at every request, never kept
    assert read_header_block(f"GET / HTTP/1.1\r\n{long}: v\r\n\r\n".encode())[1][long] == "v"
    assert long not in http_server._KNOWN_NAMES


class Served:
    """``LimitedServer`` serving ``server.make_app()`` on a loop in a thread."""

    def __init__(self, server: MCPServer) -> None:
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        self.port = sockets[0].getsockname()[1]
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        stop: list[asyncio.Event] = []

        async def main() -> None:
            http = LimitedServer(server.make_app())
            http.add_sockets(sockets)
            stop.append(asyncio.Event())
            ready.set()
            await stop[0].wait()
            http.stop()
            await http.close_all_connections()

        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(main()), daemon=True)
        self.thread.start()
        assert ready.wait(10)
        self._stop = stop

    def exchange(self, data: bytes) -> bytes:
        """Send ``data`` on a fresh connection and read until the server closes it (``Connection: close``)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            sock.sendall(data)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self._stop[0].set)
        self.thread.join(10)


@pytest.fixture
def served() -> Any:
    server = MCPServer("blocks")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    running = Served(server)
    yield running
    running.close()


def post(port: int, lines: str, body: bytes) -> bytes:
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n{lines}"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin1") + body


INIT = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}')


def test_the_runners_server_answers_usual_and_odd_blocks_as_tornado_would(served: Served) -> None:
    usual = served.exchange(post(served.port, "Content-Type: application/json\r\nAccept: application/json\r\n", INIT))
    assert usual.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b'"protocolVersion":"2025-11-25"' in usual
    # a tab, obs-text and a name twice: Tornado's reading accepts them, the request is served
    odd = served.exchange(post(served.port, "Content-Type:\tapplication/json\t\r\nX-Latin: caf\xe9\r\n"
                                            "Accept: text/plain\r\naccept: application/json\r\n", INIT))
    assert odd.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b'"protocolVersion":"2025-11-25"' in odd
    # a folded line, a name that is no token: Tornado's bare 400, as before
    for lines in ("Content-Type: application/json\r\n folded\r\n", "Content Type: application/json\r\n"):
        assert served.exchange(post(served.port, lines, INIT)) == b"HTTP/1.1 400 Bad Request\r\n\r\n"
