"""The runner's server reads a request's header block with ``str`` methods (``http_server.read_header_block``), to the
same start line and headers as Tornado's own reading, which it still hands every block that is not the usual
kind: Tornado accepts or refuses (400) what it did, with the same values. The usual block (an MCP client's)
enters no Tornado line parser at all: 162.7k instructions fewer a block (callgrind, Tornado 6.6.1; review r35).

Review r35: a block too large to serve (over ``MAX_HEADER_BYTES + 2`` bytes as sent) is answered 431 without being
parsed (it was read twice: the fast path, then Tornado's, ~0.3 s of loop time each for a megabyte); the reader is
bound to its connection, so its fallback is Tornado's method of that connection (a Tornado whose ``_parse_headers``
reads ``self`` still answers every block); it is used only with the Tornado releases it was checked against; and the
differential below covers leading CRLFs, odd start lines, VT/FF/``\x85``/``\xff`` and blocks cut where Tornado's
``read_until_regex`` cuts them (the generators of the review's fuzz.py).
"""

from __future__ import annotations

import asyncio
import random
import re
import socket
import sys
import threading
import time
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
import tornado
import tornado.netutil
from tornado.http1connection import HTTP1Connection
from tornado.httputil import HTTPHeaders, HTTPInputError

from nanohubmcp import MCPServer
from nanohubmcp.transports import http_limits, http_server
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
        start, headers = read_header_block(None, data)  # type: ignore[arg-type]  # (as tornados() reads it)
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
    read_header_block(None, USUAL)  # type: ignore[arg-type]  # (its names remembered as tokens)
    entered: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            entered.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        start, headers = read_header_block(None, USUAL)  # type: ignore[arg-type]
    finally:
        sys.setprofile(None)
    assert start == "POST /mcp HTTP/1.1"
    assert headers["Mcp-Session-Id"] == SESSION
    assert not {"parse", "parse_line", "add", "_parse_headers"} & set(entered)


def test_the_names_remembered_are_bounded() -> None:
    http_server._KNOWN_NAMES.clear()
    for n in range(http_server.MAX_KNOWN_NAMES + 10):
        ours(f"GET / HTTP/1.1\r\nX-{n}: v\r\n\r\n".encode())
    assert 0 < len(http_server._KNOWN_NAMES) <= http_server.MAX_KNOWN_NAMES
    long = "X-" + "a" * 100  # read as any other, checked at every request, never kept
    assert read_header_block(None, f"GET / HTTP/1.1\r\n{long}: v\r\n\r\n".encode())[1][long] == "v"  # type: ignore[arg-type]
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
            http = self.http = LimitedServer(server.make_app(), max_header_size=http_limits.READ_HEADER_BYTES)
            http.add_sockets(sockets)  # (as runner.py)
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


# The review's fuzz.py generators (r35): structured blocks with risky names, values, separators, line ends, leading
# CRLFs and odd start lines; strings of risky atoms; 1-4 byte mutations of an MCP client's block; random bytes.
ATOMS = [b"\r", b"\n", b"\r\n", b"\r\n", b"\r\n", b":", b": ", b" ", b"  ", b"\t", b"\x00", b"\x7f", b"\x0b", b"\x0c",
         b"\x1c", b"\x1f", b"\x85", b"\xa0", b"\xe9", b"\xff", b"Host", b"host", b"HOST", b"Content-Length",
         b"content-length", b"Content-length", b"Transfer-Encoding", b"transfer-encoding", b"chunked",
         b"Mcp-Session-Id", b"mcp-session-id", b"Origin", b"Authorization", b"Bearer x", b"X", b"-", b"--", b"a",
         b"1", b"0", b",", b'"', b"(", b"~", b"_", b"GET / HTTP/1.1", b"POST /mcp HTTP/1.1", b"HTTP/1.0", b" /",
         b"\r\r", b"\n\r", b"=", b";", b"\\", b"%"]
NAMES = [b"Host", b"host", b"HOST", b"hOsT", b"Content-Length", b"content-length", b"CONTENT-LENGTH",
         b"Content-length", b"Transfer-Encoding", b"transfer-encoding", b"Mcp-Session-Id", b"MCP-SESSION-ID",
         b"Origin", b"Authorization", b"X-A", b"x-a", b"A", b"a", b"-", b"--a", b"a--b", b"Content_Length",
         b"Content-Length ", b" Content-Length", b"", b"Ho st", b"Ho\x00st", b"Host\t", b"Ho\xe9st", b"X" * 70,
         b"x" * 64, b"Expect", b"Connection", b"Accept"]
VALUES = [b"", b" ", b"   ", b"a", b" a", b"a ", b" a b ", b"5", b"05", b"5, 5", b"5,6", b"chunked", b"chunked, gzip",
          b"\tchunked", b"chunked\t", b"a\tb", b"a\x00b", b"a\rb", b"a\nb", b"caf\xe9", b"\xa0v\xa0", b"a:b", b" : ",
          b"\x7f", b"\x0b5", b"5\x0c", b"http://evil", b"Bearer t", b"100-continue", b"close", b"keep-alive"]
STARTS = [b"POST /mcp HTTP/1.1", b"GET / HTTP/1.1", b"GET / HTTP/1.0", b"", b"G", b"GET /\x00 HTTP/1.1",
          b"GET /\xe9 HTTP/1.1", b"GET / HTTP/1.1\r", b" GET / HTTP/1.1", b"GET / HTTP/1.1 ", b"GET  / HTTP/1.1",
          b"GET\t/ HTTP/1.1"]
EOLS = [b"\r\n"] * 8 + [b"\n", b"\r\r\n", b"\n\r", b"\r", b""]
PRE = [b""] * 8 + [b"\r\n", b"\n", b"\r\n\r\n", b"\r", b" \r\n"]
END = re.compile(rb"\r?\n\r?\n")  # where Tornado's read_until_regex cuts a request's block


class Blocks:
    """The review's generators on one seeded ``random.Random``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def structured(self) -> bytes:
        rng = self.rng
        bad = rng.random() < 0.5
        out = (rng.choice(PRE) + rng.choice(STARTS) + rng.choice(EOLS)) if bad else b"POST /mcp HTTP/1.1\r\n"
        for _ in range(rng.choice([0, 1, 2, 3, 4, 6, 10])):
            r = rng.random()
            if r < 0.5 and not bad:
                line = rng.choice(NAMES[:20]) + b": " + rng.choice(VALUES[:15])
            elif r < 0.58:
                line = rng.choice([b" folded", b"\tfolded", b"", b"no colon", b":", b": v"])
            else:
                sep = rng.choice([b":", b": ", b":  ", b" :", b":\t", b": \t "]) if rng.random() < 0.3 else b": "
                line = rng.choice(NAMES) + sep + rng.choice(VALUES)
            out += line + (rng.choice(EOLS) if bad else b"\r\n")
        return out + rng.choice([b"\r\n"] * 6 + [b"\n", b"", b"\r\n\r\n", b"\r\nX: after\r\n\r\n"])

    def atoms(self) -> bytes:
        return b"".join(self.rng.choice(ATOMS) for _ in range(self.rng.randint(0, 25)))

    def mutated(self) -> bytes:
        rng = self.rng
        block = bytearray(USUAL)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(block) + 1)
            op = rng.random()
            piece = rng.choice(ATOMS) if rng.random() < 0.7 else bytes([rng.randrange(256)])
            if op < 0.4 and i < len(block):
                del block[i]
            elif op < 0.7:
                block[i:i] = piece
            elif i < len(block):
                block[i:i + 1] = piece
        return bytes(block)

    def random_bytes(self) -> bytes:
        return bytes(self.rng.choice(b"\r\n:\t \x00\x7f\x80\xffaA-1") for _ in range(self.rng.randint(0, 30)))

    def next(self) -> list[bytes]:
        """One input, and the block Tornado would hand over of it when that differs (cut at its first blank line)."""
        make = self.rng.choice([self.structured, self.structured, self.structured, self.atoms, self.mutated,
                                self.mutated, self.random_bytes])
        data = make()
        if make in (self.atoms, self.random_bytes) and self.rng.random() < 0.5:
            data = b"POST /mcp HTTP/1.1\r\n" + data  # field lines after a good start line
        end = END.search(data)
        return [data] if end is None or end.end() == len(data) else [data, data[:end.end()]]


def inside(data: bytes, read: Callable[[bytes], tuple[str, HTTPHeaders]]) -> object:
    """``read(data)``'s start line, field lines, combined values and the headers' own dicts (``_as_list``,
    ``_combined_cache`` or ``_dict``), or ``"400"``."""
    try:
        start, headers = read(data)
    except HTTPInputError:
        return "400"
    state = {key: value for key, value in vars(headers).items() if key != "_last_key"}
    return start, type(headers), list(headers.get_all()), {name: headers[name] for name in headers}, state


TORNADOS_PARSE = HTTP1Connection._parse_headers


def test_the_reviews_generated_blocks_read_as_tornado_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    fallbacks = [0]

    def fallback(connection: Any, block: bytes) -> tuple[str, HTTPHeaders]:
        fallbacks[0] += 1
        return TORNADOS_PARSE(connection, block)

    blocks = Blocks(35)
    cases = fast = refused = 0
    started = time.perf_counter()
    for n in range(20_000):
        if n % 997 == 0:
            http_server._KNOWN_NAMES.clear()  # (both states of the name cache)
        for data in blocks.next():
            theirs = inside(data, lambda block: TORNADOS_PARSE(None, block))  # type: ignore[arg-type]
            before = fallbacks[0]
            with monkeypatch.context() as patched:
                patched.setattr(HTTP1Connection, "_parse_headers", fallback)
                mine = inside(data, lambda block: read_header_block(None, block))  # type: ignore[arg-type]
            assert mine == theirs, data
            cases += 1
            fast += fallbacks[0] == before
            refused += theirs == "400"
    assert cases > 20_000  # (cut blocks too)
    assert fast > 2_000  # (both readers and both verdicts exercised)
    assert refused > 5_000
    assert time.perf_counter() - started < 10  # (~1 s: not a budget, a bound against a runaway generator)


def test_the_gate_is_the_tornado_releases_checked() -> None:
    assert (tornado.version_info < (6, 7)) == http_server.READS_HEADER_BLOCKS


class Parses:
    """Calls of Tornado's field-line parser (``HTTPHeaders.parse_line``) and of the fast path's ``__setitem__`` for
    field names starting ``X-Pad``, in every thread, while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.tornados = 0
        self.fast = 0
        parse_line, setitem = HTTPHeaders.parse_line, HTTPHeaders.__setitem__

        def counted_parse_line(headers: HTTPHeaders, line: str, *args: Any, **kwargs: Any) -> None:
            self.tornados += 1
            parse_line(headers, line, *args, **kwargs)

        def counted_setitem(headers: HTTPHeaders, name: str, value: str) -> None:
            self.fast += name.startswith("X-Pad")
            setitem(headers, name, value)

        monkeypatch.setattr(HTTPHeaders, "parse_line", counted_parse_line)
        monkeypatch.setattr(HTTPHeaders, "__setitem__", counted_setitem)


PAD = "".join(f"X-Pad-{n}: v\r\n" for n in range(8_000))  # ~110 KB of usual lines


@pytest.mark.parametrize("last", ["X-Tab: \tv\r\n", "X-Pad-1: w\r\n", "Accept: */*\r\n"],
                         ids=["a tab last", "a name twice", "all usual"])
def test_an_oversized_block_is_answered_431_unparsed(served: Served, monkeypatch: pytest.MonkeyPatch,
                                                     last: str) -> None:
    parses = Parses(monkeypatch)
    block = f"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n{PAD}{last}\r\n".encode()
    answer = served.exchange(block)
    assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    assert (parses.tornados, parses.fast) == (0, 0)  # was 8,000 lines read by one reader or by both
    # measured as sent (a tab after the colon counts; the field-line measure strips it)
    assert f"the headers take {len(block) - 2} bytes, the limit is {http_server.MAX_HEADER_BYTES}".encode() in answer


class ReadsSelf:
    """A Tornado whose ``_parse_headers`` reads its connection (``self.params``), as a later one may."""

    @staticmethod
    def _parse_headers(connection: HTTP1Connection, data: bytes) -> tuple[str, HTTPHeaders]:
        assert connection.params.max_header_size is None or connection.params.max_header_size > 0
        return TORNADOS_PARSE(connection, data)


def test_a_tornado_whose_reading_uses_its_connection_still_answers_every_block(
        served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(HTTP1Connection, "_parse_headers", ReadsSelf._parse_headers)
    tab = served.exchange(post(served.port, "Content-Type:\tapplication/json\r\nAccept: application/json\r\n", INIT))
    assert tab.startswith(b"HTTP/1.1 200 OK\r\n")  # was no answer: AttributeError on None, a traceback logged
    folded = served.exchange(post(served.port, "Content-Type: application/json\r\n folded\r\n", INIT))
    assert folded == b"HTTP/1.1 400 Bad Request\r\n\r\n"


@pytest.mark.skipif(not http_server.READS_HEADER_BLOCKS, reason="a later Tornado reads its own header blocks")
def test_a_served_request_is_read_by_the_reader(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    parses = Parses(monkeypatch)
    called: list[bytes] = []

    def spy(connection: HTTP1Connection, data: bytes) -> tuple[str, HTTPHeaders]:
        assert type(connection) is weakref.ProxyType  # (bound to its connection, weakly: no cycle a request)
        assert isinstance(connection, HTTP1Connection)
        called.append(data)
        return read_header_block(connection, data)

    # (a Tornado that renamed _parse_headers would call its own reading: nothing here, each line parsed)
    monkeypatch.setattr(http_server, "read_header_block", spy)
    usual = served.exchange(post(served.port, "Content-Type: application/json\r\nAccept: application/json\r\n", INIT))
    assert usual.startswith(b"HTTP/1.1 200 OK\r\n")
    assert len(called) == 1
    assert called[0].startswith(b"POST /mcp HTTP/1.1\r\n")
    assert parses.tornados == 0  # (Tornado's own reading would have parsed each line)


def test_a_later_tornado_reads_its_own_blocks(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_server, "READS_HEADER_BLOCKS", False)
    parses = Parses(monkeypatch)
    usual = served.exchange(post(served.port, "Content-Type: application/json\r\nAccept: application/json\r\n", INIT))
    assert usual.startswith(b"HTTP/1.1 200 OK\r\n")
    assert parses.tornados >= 4  # Tornado's reading, every line
    block = f"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n{PAD}\r\n".encode()
    assert served.exchange(block).startswith(b"HTTP/1.1 431 ")  # (its headers measured after its reading)


def test_an_oversized_blocks_unread_body_is_never_read_as_a_request(served: Served) -> None:
    # Its Content-Length is among the unread fields: the 431 closes the connection, so the body (here a whole
    # request) is never taken for the next request.
    smuggled = b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    block = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{PAD}Content-Length: {len(smuggled)}\r\n\r\n").encode()
    answer = served.exchange(block + smuggled)
    assert answer.startswith(b"HTTP/1.1 431 ")
    assert answer.count(b"HTTP/1.1 ") == 1  # then closed: one answer
