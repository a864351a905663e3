"""A ``resources/read`` of a large kept result, answered over Streamable HTTP as a JSON body, sends its
text from its file a piece at a time: the same bytes as before, with the server holding a few pieces,
not the text.

Measured before (bench/kept_peak.py --read, bench/findings.md § 14.1): reading back a 203 MB kept array
held its text about three times over (the file's bytes, the decoded string, the answer's bytes), 580 MB
over the idle server. Now the answer is the encoder's envelope around the text, the text read, decoded,
escaped and sent a ``read_piece_bytes`` piece at a time, each taken by the socket before the next is
read, with ``Content-Length`` counted before the first byte.

Here the pieces are small (the store's ``read_piece_bytes``), and the read's peak is traced with
tracemalloc, client and server in this process; the expected answer is what the in-memory client gets
(the path that still reads the text whole), written by the one encoder.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import logging
import os
import socket
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from kept_reads import ARRAY, HANDSHAKE, MODERN, ODD, PIECE, TEXT_IDS, TEXTS, as_sent, expected, keep, read_message
from support import mcp_client, serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.testing import in_memory
from nanohubmcp.transports import unsent


def headers(version: str, uri: str = "") -> dict[str, str]:
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": version}
    if version == MODERN:
        sent.update({"Mcp-Method": "resources/read", "Mcp-Name": uri})
    return sent


def connect(url: str, **options: Any) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60, **options)


def post(url: str, message: dict[str, Any], version: str, block: int = 1 << 16) -> tuple[int, str | None, str]:
    """POST ``message``; the status, ``Content-Length`` and SHA-256 of the body, read ``block`` bytes at a time
    (the client never holds the answer)."""
    connection = connect(url)
    try:
        connection.request("POST", "/mcp", json.dumps(message), headers(version, message["params"]["uri"]))
        response = connection.getresponse()
        digest = hashlib.sha256()
        while block_read := response.read(block):
            digest.update(block_read)
        return response.status, response.getheader("Content-Length"), digest.hexdigest()
    finally:
        connection.close()


@pytest.fixture
def server(tmp_path: Path) -> MCPServer:
    made = MCPServer("kept-pieces", state_dir=str(tmp_path), max_kept_bytes=100_000_000, provenance=False)
    made.core.result_store.read_piece_bytes = PIECE
    return made


@pytest.mark.parametrize("version", ["2025-03-26", HANDSHAKE, MODERN])
@pytest.mark.parametrize(("text", "mime_type", "pieces"), TEXTS, ids=TEXT_IDS)
def test_the_answer_is_the_bytes_the_text_read_whole_gives(
        server: MCPServer, version: str, text: str, mime_type: str, pieces: list[int]) -> None:
    uri = keep(server, text, mime_type)
    message = read_message(uri, version, request_id="r\u00e9ad")
    want = expected(server, message, version)
    assert json.loads(want)["result"]["contents"][0]["text"] == as_sent(text)
    with serve(server) as url:
        for piece in pieces:
            server.core.result_store.read_piece_bytes = piece
            status, length, digest = post(url, message, version)
            assert (status, length, digest) == (200, str(len(want)), hashlib.sha256(want).hexdigest()), piece


def test_an_id_with_no_utf8_form_is_answered_escaped_as_before(server: MCPServer) -> None:
    uri = keep(server, ODD[:5000], "text/plain")
    message = read_message(uri, HANDSHAKE, request_id="\ud800")  # a lone surrogate: the answer is all \u escapes
    want = expected(server, message, HANDSHAKE)
    assert want.isascii()
    with serve(server) as url:
        assert post(url, message, HANDSHAKE) == (200, str(len(want)), hashlib.sha256(want).hexdigest())


def test_the_read_holds_a_few_pieces_not_the_text(server: MCPServer) -> None:
    text = ARRAY * 3  # 11 MB
    uri, small = keep(server, text), keep(server, ARRAY[:100_000])
    message = read_message(uri, HANDSHAKE)
    want_digest = hashlib.sha256(expected(server, message, HANDSHAKE)).hexdigest()
    piece = 4 * PIECE
    server.core.result_store.read_piece_bytes = piece
    with serve(server) as url:
        post(url, read_message(small, HANDSHAKE), HANDSHAKE)  # (first uses: imports, the first read's objects)
        tracemalloc.start()
        try:
            status, _, digest = post(url, message, HANDSHAKE, block=piece)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert (status, digest) == (200, want_digest)
    # The file's piece, its string, its escaped string and bytes; the client's block and its reader's
    # buffer; Tornado's futures of the pieces written; the request's own objects: about 8 pieces.
    # Before: the text three times (33 MB).
    assert peak < 12 * piece, (peak, len(text))


@contextlib.contextmanager
def slow_reader(url: str, message: dict[str, Any]) -> Iterator[socket.socket]:
    """A client that sent ``message`` and reads nothing yet, with a small receive buffer (so the server
    is held mid-answer); yields its socket, closed at the end."""
    parts = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((parts.hostname or "127.0.0.1", parts.port or 80))
    body = json.dumps(message).encode()
    head = "".join(f"{k}: {v}\r\n" for k, v in {**headers(HANDSHAKE), "Content-Length": str(len(body))}.items())
    sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: {parts.netloc}\r\n{head}\r\n".encode() + body)
    try:
        yield sock
    finally:
        sock.close()


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_client_that_goes_away_mid_answer_leaves_the_server_serving(
        server: MCPServer, caplog: pytest.LogCaptureFixture) -> None:
    text = ARRAY * 8  # 30 MB: more than the socket buffers on both ends take
    uri = keep(server, text)
    message = read_message(uri, HANDSHAKE)
    want_digest = hashlib.sha256(expected(server, message, HANDSHAKE)).hexdigest()
    with serve(server) as url, caplog.at_level(logging.DEBUG, "nanohubmcp"):
        before = open_files()
        with slow_reader(url, message) as sock:
            assert sock.recv(1024).startswith(b"HTTP/1.1 200 OK")  # the answer began
            wait_until(lambda: open_files() > before, "the read opened the kept file")
        wait_until(lambda: open_files() <= before, "the server closed the kept file when the client left")
        wait_until(lambda: any("went away" in r.getMessage() for r in caplog.records), "the server saw it go")
        assert post(url, message, HANDSHAKE)[2] == want_digest  # still serving, the same answer
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_a_client_closed_by_its_drain_deadline_ends_the_writing(
        server: MCPServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # The budget's close left the piece's write pending for ever (Tornado forgets it): the writing, its open
    # file and the handler stayed until the server stopped.
    monkeypatch.setattr(unsent, "DRAIN_GRACE", 0.5)
    monkeypatch.setattr(unsent, "SWEEP_SECONDS", 0.1)
    uri = keep(server, ARRAY * 8)
    with serve(server) as url, caplog.at_level(logging.DEBUG, "nanohubmcp"):
        budget = server._serving._runner.config.unsent  # type: ignore[union-attr]
        before = open_files()
        with slow_reader(url, read_message(uri, HANDSHAKE)):
            wait_until(lambda: len(budget) == 1, "a piece the socket did not take")
            wait_until(lambda: len(budget) == 0, "the drain deadline closed the connection")
            wait_until(lambda: any("went away" in r.getMessage() for r in caplog.records), "the writing stopped")
            wait_until(lambda: open_files() <= before + 1, "the kept file closed")  # (+1: the client's socket)


def test_a_client_closed_as_over_the_unsent_budget_ends_the_writing(
        server: MCPServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # Review r20 L12: the budget's other close (max_unsent_bytes passed) drops the pending write the same way;
    # its held write is marked done, so the writing stops and its file closes while the others go on.
    server.core.result_store.read_piece_bytes = 512 * 1024  # three readers' pieces pass the 1 MiB budget
    uri = keep(server, ARRAY * 8)
    kept = str(kept_file(tmp_path, uri))
    with serve(server, max_unsent_bytes=1 << 20) as url, caplog.at_level(logging.DEBUG, "nanohubmcp"):
        budget = server._serving._runner.config.unsent  # type: ignore[union-attr]
        with contextlib.ExitStack() as readers:
            for _ in range(3):
                readers.enter_context(slow_reader(url, read_message(uri, HANDSHAKE)))
            wait_until(lambda: "more than max_unsent_bytes" in caplog.text, "the budget closed one")
            wait_until(lambda: "went away" in caplog.text, "its writing stopped")
            wait_until(lambda: opened(kept) == 2, "the closed answer's kept file closed")
            # the two others still being written (their drain deadline, 30 s away, closes nothing yet)
            assert (len(budget), opened(kept)) == (2, 2)


def opened(path: str) -> int:
    """How many of this process's file descriptors are open on ``path``."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            count += os.readlink(f"/proc/self/fd/{fd}") == path
    return count


def kept_file(state: Path, uri: str) -> Path:
    return state / "results" / uri.rpartition("/")[2]


def test_a_result_evicted_mid_answer_is_still_sent_whole_and_then_reads_as_evicted(
        server: MCPServer, tmp_path: Path) -> None:
    text = ARRAY * 8
    server.core.result_store.max_bytes_per_owner = len(text) + 1000  # the next result pushes it out
    uri = keep(server, text)
    message = read_message(uri, HANDSHAKE)
    want = expected(server, message, HANDSHAKE)
    with serve(server) as url:
        with slow_reader(url, message) as sock:
            first = sock.recv(1024)
            assert first.startswith(b"HTTP/1.1 200 OK")
            keep(server, "[1]" * 1000)
            assert not kept_file(tmp_path, uri).exists()
            answer = receive_all_after(sock, first)
        assert hashlib.sha256(answer).hexdigest() == hashlib.sha256(want).hexdigest()
        again = json.loads(http_body(url, message))
        assert again["error"]["code"] == -32002
        assert again["error"]["message"].startswith(f"Resource evicted: {uri}")


def receive_all_after(sock: socket.socket, first: bytes) -> bytes:
    """The body of the response whose first bytes (``first``) were read already."""
    data = first
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length"))
    chunks, got = [body], len(body)
    while got < length:
        chunk = sock.recv(1 << 20)
        assert chunk, f"the answer ended after {got} of {length} bytes"
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def http_body(url: str, message: dict[str, Any]) -> bytes:
    connection = connect(url)
    try:
        connection.request("POST", "/mcp", json.dumps(message), headers(HANDSHAKE))
        return connection.getresponse().read()
    finally:
        connection.close()


def test_a_file_cut_short_under_the_answer_closes_the_connection_and_says_why(
        server: MCPServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    text = ARRAY * 8
    uri = keep(server, text)
    message = read_message(uri, HANDSHAKE)
    kept = kept_file(tmp_path, uri)
    with serve(server) as url, caplog.at_level(logging.ERROR, "nanohubmcp"):
        with slow_reader(url, message) as sock:
            first = sock.recv(1024)
            os.truncate(kept, len(text) // 2)  # (not something the server does to a kept file)
            with pytest.raises(AssertionError, match="the answer ended after"):
                receive_all_after(sock, first)
        assert any("not the" in r.getMessage() and "counted" in r.getMessage() for r in caplog.records)
        assert json.loads(http_body(url, read_message(uri, HANDSHAKE)))  # still serving


def test_a_batch_answers_the_text_read_whole_as_before(server: MCPServer) -> None:
    uri = keep(server, ODD, "text/plain")
    batch = [read_message(uri, "2025-03-26", 1), read_message(uri, "2025-03-26", 2)]
    with in_memory(server, version="2025-03-26", session=False, timeout=60) as client:
        want = jsonenc.dumpb(client.send(batch))
    with serve(server) as url:
        status, length, digest = batch_post(url, batch)
    assert (status, length, digest) == (200, str(len(want)), hashlib.sha256(want).hexdigest())


def batch_post(url: str, batch: list[dict[str, Any]]) -> tuple[int, str | None, str]:
    connection = connect(url)
    try:
        connection.request("POST", "/mcp", json.dumps(batch), headers("2025-03-26"))
        response = connection.getresponse()
        return response.status, response.getheader("Content-Length"), hashlib.sha256(response.read()).hexdigest()
    finally:
        connection.close()


@pytest.mark.anyio
async def test_the_official_client_reads_a_kept_result_of_its_session(tmp_path: Path) -> None:
    server = MCPServer("kept-pieces", state_dir=str(tmp_path), max_inline_bytes=1000, provenance=False)
    text = ODD[:200_000]

    @server.tool()
    def odd() -> str:
        """Text with every kind of escape."""
        return text

    server.core.result_store.read_piece_bytes = 1000
    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("odd", {})
            link = next(block for block in result.content if block.type == "resource_link")
            read = await client.read_resource(link.uri)
    assert kept_file(tmp_path, str(link.uri)).exists()  # read from its file
    assert read.contents[0].text == text
