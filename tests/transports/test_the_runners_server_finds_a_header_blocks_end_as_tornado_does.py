"""The runner's server reads a request's header block up to ``\n\r?\n`` (``http_server.HEADER_END``, through
``read_until_header_end``), not Tornado's ``\r?\n\r?\n``, which enters the regular expression engine at every byte
of the read buffer (~44k instructions a request, exp-bbv; ~4.5k now): the same end for any buffer, the same
``max_bytes`` refusal, and requests of either line ending (pipelined on one connection too) are answered as before.
"""

from __future__ import annotations

import asyncio
import random
import re
import socket
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from tornado.iostream import IOStream, UnsatisfiableReadError

from nanohubmcp import MCPServer
from nanohubmcp.transports.http_server import HEADER_END, read_until_header_end
from tests.transports.test_the_runners_server_reads_header_blocks_as_tornado_does import Served

TORNADOS = re.compile(b"\r?\n\r?\n")  # (what Tornado's HTTP1Connection reads a header block up to)
BUFFERS = [b"", b"\r\n\r\n", b"\n\n", b"\r\n\n", b"\n\r\n", b"a\r\n\r\nb\n\n", b"a\n\nb\r\n\r\n", b"a\n\n\r\n",
           b"a\r\n\r\r\n\r\n", b"a\r\r\n\n", b"a\n\r\r\n\n", b"no end\r\n", b"\r\n\r", b"x" * 50 + b"\r\n\r\nbody\n\n"]


def end(pattern: re.Pattern[bytes], buffer: bytes) -> int | None:
    match = pattern.search(buffer)
    return None if match is None else match.end()


def find(ours: bool, buffer: bytes, max_bytes: int | None) -> int | str | None:
    """Where a stream (``ours``: reading up to what the runner's server's reads up to), reading a header block,
    finds the read's end in ``buffer``, or its refusal's text but the pattern's name."""
    left, right = socket.socketpair()
    try:
        stream = IOStream(left)
        stream._read_regex = re.compile(HEADER_END if ours else TORNADOS.pattern)
        stream._read_max_bytes = max_bytes
        stream._read_buffer = bytearray(buffer)
        stream._read_buffer_size = len(buffer)
        try:
            return stream._find_read_pos()
        except UnsatisfiableReadError as exc:
            return str(exc).replace(repr(stream._read_regex), "the pattern")
        finally:
            stream.close()
    finally:
        right.close()


async def ends(buffers: list[bytes], max_bytes: int | None) -> None:
    for buffer in buffers:
        assert find(True, buffer, max_bytes) == find(False, buffer, max_bytes), buffer


def test_the_end_is_tornados_for_any_buffer() -> None:
    rng = random.Random(38)
    pieces = [b"\r", b"\n", b"\r\n", b"a", b"b: c", b" "]
    made = [b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(20000)]
    for buffer in BUFFERS + made:
        assert end(re.compile(HEADER_END), buffer) == end(TORNADOS, buffer), buffer
    asyncio.run(ends(BUFFERS + made[:500], None))  # as a stream reads it
    asyncio.run(ends(BUFFERS + made[:500], 6))  # the bound: the same refusals, at the same sizes


@pytest.fixture
def served() -> Iterator[Served]:
    running = Served(MCPServer("ends"))  # (its health probe is what the requests ask)
    yield running
    running.close()


def test_requests_of_either_line_ending_are_answered_on_one_connection(served: Served) -> None:
    crlf = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n\r\n".encode()
    lf = f"GET /healthz HTTP/1.1\nHost: 127.0.0.1:{served.port}\nConnection: close\n\n".encode()
    answer = served.exchange(crlf + crlf + lf)  # pipelined: each block's end found in one buffer
    assert answer.count(b"HTTP/1.1 200 ") == 3, answer


def test_a_plain_connections_stream_finds_the_end_itself(served: Served) -> None:
    streams: list[Any] = []

    async def look() -> None:
        for conn in list(served.http._connections):
            streams.append(conn.stream.__dict__.get("read_until_regex"))

    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n\r\n".encode())
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        asyncio.run_coroutine_threadsafe(look(), served.loop).result(10)
    assert len(streams) == 1
    assert streams[0].func is read_until_header_end
    assert type(streams[0].args[0]) is weakref.ref  # (no reference cycle: the stream holds its reader)
