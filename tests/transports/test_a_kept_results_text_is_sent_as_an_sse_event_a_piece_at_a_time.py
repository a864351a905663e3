"""A ``resources/read`` of a large kept result answered as an SSE event (a Streamable HTTP POST whose
answer became a stream because a related message went first; the legacy HTTP+SSE transport, whose answers
go on the GET stream) writes its ``data:`` line from the kept file a piece at a time: the bytes the text
read whole gives, with the server holding a few pieces, not the text, and a piece waiting for the socket
before the next is read.

Before, ``SSEWriter`` framed the event whole: the text about three times at once (the file's bytes, its
string, the event's bytes), all of it in Tornado's buffer for a client that does not read.

The expected ``data:`` line is ``data: `` and what the in-memory client gets (the text read whole),
written by the one encoder; the line holds no raw CR or LF (the event's data is that one line).

Such a read over the official ``mcp`` client's 1 MiB is refused as an event by default (a JSON-RPC error naming its
size: ``event_bound.hold_read_to_event``,
tests/server/test_a_resource_read_too_large_for_one_event_is_a_readable_error.py); these tests' servers have no bound
(``max_event_bytes=None``, :func:`plain_server`): they are of the writing of a larger one, as a client reading such
events gets it.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import socket
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import anyio
import pytest
from kept_reads import ARRAY, HANDSHAKE, MODERN, ODD, PIECE, TEXT_IDS, TEXTS, as_sent, expected, keep, read_message
from support import mcp_client, serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.transports import unsent

LOGGED = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "reading"}}


def plain_server(tmp_path: Path, **options: Any) -> MCPServer:
    """A server sending events of any size (``max_event_bytes=None``: see the module's text)."""
    made = MCPServer("kept-events", state_dir=str(tmp_path), max_kept_bytes=200_000_000, provenance=False,
                     max_event_bytes=None, **options)
    made.core.result_store.read_piece_bytes = PIECE
    return made


def logging_server(tmp_path: Path, **options: Any) -> MCPServer:
    """A server whose reads send a log message first, so a Streamable HTTP answer that may be a stream is one.

    Only a middleware can send a message before a read's answer, and the application's middleware sees a
    kept read's text as a str unless added with ``stream_kept_text=True``: this one is, so the answer goes
    the writer's piece-at-a-time way."""
    made = plain_server(tmp_path, **options)

    async def log_first(request: Any, call_next: Any) -> dict[str, Any]:
        if request.method == "resources/read":
            request.context.send_related(LOGGED)
        return await call_next(request)

    made.add_middleware(log_first, stream_kept_text=True)
    return made


@pytest.fixture
def server(tmp_path: Path) -> MCPServer:
    """For the POST's stream: the log message first."""
    return logging_server(tmp_path)


@pytest.fixture
def legacy_server(tmp_path: Path) -> MCPServer:
    """For legacy SSE, whose answers are events anyway: no middleware."""
    return plain_server(tmp_path)


class Lines:
    """The lines of an SSE response read ``block`` bytes at a time on a thread of its own, each kept as its
    first bytes, its length and its SHA-256 (never the line: the client holds a block, not the answer)."""

    def __init__(self, response: http.client.HTTPResponse, block: int) -> None:
        self.lines: list[tuple[bytes, int, str]] = []
        self._response, self._block = response, block
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        digest, head, size = hashlib.sha256(), b"", 0
        try:
            while data := self._response.read1(self._block):
                while b"\n" in data:
                    line, _, data = data.partition(b"\n")
                    digest.update(line)
                    self.lines.append(((head + line)[:80], size + len(line), digest.hexdigest()))
                    digest, head, size = hashlib.sha256(), b"", 0
                digest.update(data)
                head, size = (head + data)[:80], size + len(data)
        except (OSError, ValueError, http.client.HTTPException):  # (closed under the reader at the end)
            pass

    def data(self) -> list[tuple[int, str]]:
        """Each ``data:`` line's length and digest, in order."""
        return [(size, digest) for head, size, digest in self.lines if head.startswith(b"data: ")]

    def join(self) -> None:
        self._thread.join(60)


def connect(url: str) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)


def line_of(answer: bytes) -> tuple[int, str]:
    line = b"data: " + answer
    assert b"\n" not in line  # JSON text: every line break inside a string escaped
    assert b"\r" not in line
    return len(line), hashlib.sha256(line).hexdigest()


def post_stream(url: str, message: dict[str, Any], version: str, block: int = 1 << 16) -> tuple[str | None, Lines]:
    """POST ``message`` accepting an SSE answer; its Content-Type and its lines, read to the end."""
    connection = connect(url)
    try:
        sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": version}
        if version == MODERN:
            sent.update({"Mcp-Method": "resources/read", "Mcp-Name": message["params"]["uri"]})
        connection.request("POST", "/mcp", json.dumps(message), sent)
        response = connection.getresponse()
        lines = Lines(response, block)
        lines.join()
        return response.getheader("Content-Type"), lines
    finally:
        connection.close()


@pytest.mark.parametrize("version", ["2025-03-26", HANDSHAKE, MODERN])
@pytest.mark.parametrize(("text", "mime_type", "pieces"), TEXTS, ids=TEXT_IDS)
def test_a_streamed_answers_data_line_is_the_bytes_the_text_read_whole_gives(
        server: MCPServer, version: str, text: str, mime_type: str, pieces: list[int]) -> None:
    uri = keep(server, text, mime_type)
    message = read_message(uri, version, request_id="r\u00e9ad")
    want = expected(server, message, version)
    assert json.loads(want)["result"]["contents"][0]["text"] == as_sent(text)
    with serve(server) as url:
        for piece in pieces:
            server.core.result_store.read_piece_bytes = piece
            kind, lines = post_stream(url, message, version)
            assert kind == "text/event-stream"
            assert lines.data()[-1] == line_of(want), piece  # after the log message's event
            assert lines.lines[-1][1] == 0  # the event ended: a blank line


class LegacyStream:
    """A legacy HTTP+SSE session: its GET stream read on a thread (:class:`Lines`), its endpoint to POST to."""

    def __init__(self, url: str, block: int) -> None:
        self.connection = connect(url)
        self.connection.request("GET", "/sse", headers={"Accept": "text/event-stream"})
        self.lines = Lines(self.connection.getresponse(), block)
        endpoint = wait_until(lambda: next((head for head, _, _ in self.lines.lines if head.startswith(b"data: ")),
                                           None), "the endpoint event")
        self.endpoint = urljoin(url + "sse", endpoint[len(b"data: "):].decode())

    def ask(self, message: dict[str, Any]) -> tuple[int, str]:
        """POST ``message``; the ``data:`` line of its answer on the stream (its length and digest)."""
        count = len(self.lines.lines)
        connection = connect(self.endpoint)
        try:
            connection.request("POST", urlsplit(self.endpoint).path + "?" + urlsplit(self.endpoint).query,
                               json.dumps(message), {"Content-Type": "application/json"})
            assert connection.getresponse().status == 202
        finally:
            connection.close()
        # The answer's id as the encoder writes it (\u-escaped in an answer holding a lone surrogate).
        ids = [b'"id":' + json.dumps(message["id"], ensure_ascii=ascii).encode() for ascii in (False, True)]

        def answered() -> tuple[int, str] | None:  # (a log message may come first)
            return next(((size, digest) for head, size, digest in self.lines.lines[count:]
                         if head.startswith(b"data: ") and any(known in head for known in ids)), None)

        return wait_until(answered, "the answer's event")

    def close(self) -> None:
        sock = self.connection.sock
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)  # the reader sees the end, then the connection closes
        self.lines.join()
        self.connection.close()


@pytest.mark.parametrize(("text", "mime_type", "pieces"), TEXTS, ids=TEXT_IDS)
def test_a_legacy_sse_answers_data_line_is_the_bytes_the_text_read_whole_gives(
        legacy_server: MCPServer, text: str, mime_type: str, pieces: list[int]) -> None:
    server = legacy_server
    uri = keep(server, text, mime_type)
    message = read_message(uri, "2024-11-05", request_id="r\u00e9ad")
    want = line_of(expected(server, message, "2024-11-05"))
    with serve(server) as url:
        stream = LegacyStream(url, 1 << 16)
        try:
            for piece in pieces:
                server.core.result_store.read_piece_bytes = piece
                assert stream.ask(message) == want, piece
                assert stream.ask({"jsonrpc": "2.0", "id": 8, "method": "ping"})  # the events after it go on
        finally:
            stream.close()


def traced_peak(ask: Any) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        got = ask()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return got, peak


def measure_streamed(state_dir: Path) -> dict[str, Any]:
    """In a process of its own (tracemalloc counts every thread of its process: in the whole suite's, other
    tests' threads added 0.1 MB over the bound, ci35): the streamed 11 MB answer's last line, the line
    wanted, the read's traced peak."""
    server = logging_server(state_dir)
    text = ARRAY * 3  # 11 MB
    uri, small = keep(server, text), keep(server, ARRAY[:100_000])
    message = read_message(uri, HANDSHAKE)
    want = line_of(expected(server, message, HANDSHAKE))
    piece = 4 * PIECE
    server.core.result_store.read_piece_bytes = piece
    with serve(server) as url:
        post_stream(url, read_message(small, HANDSHAKE), HANDSHAKE)  # (first uses)
        (_, lines), peak = traced_peak(lambda: post_stream(url, message, HANDSHAKE, block=piece))
    return {"same": lines.data()[-1] == want, "peak": peak, "bound": 12 * piece, "size": len(text)}


CHILD = """
import json, sys
from pathlib import Path
sys.path[:0] = sys.argv[1:3]
module = __import__(Path(sys.argv[3]).stem)
print(json.dumps(module.measure_streamed(Path(sys.argv[4]))))
"""


def test_a_streamed_answer_holds_a_few_pieces_not_the_text(tmp_path: Path) -> None:
    here = Path(__file__).resolve()
    done = subprocess.run([sys.executable, "-c", CHILD, str(here.parent), str(here.parents[1]), here.name,
                           str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    read = json.loads(done.stdout.splitlines()[-1])
    assert read["same"]
    # The file's piece, its string, its escaped string and bytes; the client's block; the request's
    # objects: about 8 pieces, as for a JSON body. Before: the text three times (33 MB).
    assert read["peak"] < read["bound"], (read["peak"], read["size"])


def test_a_legacy_sse_answer_holds_a_few_pieces_not_the_text(legacy_server: MCPServer) -> None:
    server = legacy_server
    text = ARRAY * 3
    uri, small = keep(server, text), keep(server, ARRAY[:100_000])
    message = read_message(uri, "2024-11-05")
    want = line_of(expected(server, message, "2024-11-05"))
    piece = 4 * PIECE
    server.core.result_store.read_piece_bytes = piece
    with serve(server) as url:
        stream = LegacyStream(url, piece)
        try:
            stream.ask(read_message(small, "2024-11-05"))  # (first uses)
            got, peak = traced_peak(lambda: stream.ask(message))
        finally:
            stream.close()
    assert got == want
    assert peak < 12 * piece, (peak, len(text))


def test_a_client_that_stops_reading_holds_a_piece_unsent_and_is_closed_by_its_deadline(
        server: MCPServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(unsent, "DRAIN_GRACE", 0.5)
    monkeypatch.setattr(unsent, "SWEEP_SECONDS", 0.1)
    text = ARRAY * 8  # 30 MB: more than the socket buffers on both ends take
    uri = keep(server, text)
    message = read_message(uri, HANDSHAKE)
    server.core.result_store.read_piece_bytes = PIECE
    with serve(server) as url, caplog.at_level(logging.DEBUG, "nanohubmcp"):
        budget = server._serving._runner.config.unsent  # type: ignore[union-attr]
        parts = urlsplit(url)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((parts.hostname or "127.0.0.1", parts.port or 80))
        body = json.dumps(message).encode()
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: " + parts.netloc.encode() + b"\r\nContent-Type: application/json\r\n"
                     b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: " + HANDSHAKE.encode()
                     + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        try:
            wait_until(lambda: len(budget) == 1, "a piece the socket did not take")
            # A piece at a time, each waiting for the socket: never the text (before: the whole event, 30 MB).
            assert budget.total <= 2 * PIECE, budget.total
            wait_until(lambda: len(budget) == 0, "the drain deadline closed the connection")
            wait_until(lambda: any("went away mid-event" in r.getMessage() for r in caplog.records),
                       "the writing stopped")
        finally:
            sock.close()
        assert post_stream(url, read_message(keep(server, ODD, "text/plain"), HANDSHAKE), HANDSHAKE)[1].data()


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_the_official_client_reads_a_kept_result_answered_on_a_stream(tmp_path: Path, transport: str) -> None:
    server = (logging_server if transport == "http" else plain_server)(tmp_path, max_inline_bytes=1000)
    text = ODD[:200_000]

    @server.tool()
    def odd() -> str:
        """Text with every kind of escape."""
        return text

    server.core.result_store.read_piece_bytes = 1000
    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + ("mcp" if transport == "http" else "sse"), transport=transport) as client:
            result = await client.call_tool("odd", {})
            link = next(block for block in result.content if block.type == "resource_link")
            read = await client.read_resource(link.uri)
            again = await client.read_resource(link.uri)  # (a session's stream keeps going after it)
    assert read.contents[0].text == again.contents[0].text == text
