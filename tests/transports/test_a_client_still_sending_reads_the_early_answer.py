"""A client still sending its body reads the 503 of a full body budget; no ``100 Continue`` follows an early answer.

A fresh-user trial (trial56 F12): once the bodies being received at once reached ``max_buffered_bytes``, a
new request's 503 + ``Retry-After`` was written and the connection closed at once, under a client still
sending its body. httpx and the official ``mcp`` client met a connection reset (``ReadError``), never the
503, and the official client's whole session ended with it. Now the 503 is treated as the 413 was: the rest
of the body is read and dropped (at most twice ``max_request_bytes``, within the body's 30 s), so the client
reads the answer and its connection serves its next request.

(trial56 F5) A request with ``Expect: 100-continue`` answered 413 before its body got a ``100 Continue``
after the 413, on a connection left open. Now an early answer to such a request (it has sent no body) says
``Connection: close``, no 100 follows it, and the connection closes, as after a 401.

Source: RFC 9110 § 15.6.4 (503), § 10.2.3 (Retry-After), § 10.1.1 (Expect), § 15.2 (a 1xx comes before
the final answer only); RFC 9112 § 9.6 (tear-down).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Iterator

import pytest
from mcp.shared.exceptions import MCPError
from raw_http import read_reply
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.transports import http_server

MiB = 1 << 20
LIMIT = 16 * MiB
"""``max_request_bytes`` (the default): each held body declares this much."""
BUDGET = 2 * LIMIT + MiB
"""``max_buffered_bytes``: two held bodies, and room for small calls (an ``initialize``) beside them."""
BIG = 10 * MiB
"""A body that does not fit beside the two held ones: far more than the socket buffers take before a reset."""


def build() -> MCPServer:
    server = MCPServer("busy")

    @server.tool()
    def size(text: str) -> int:
        """How long the text is."""
        return len(text)

    return server


@contextlib.contextmanager
def served(**options: object) -> Iterator[int]:
    with serve(build(), token="", max_buffered_bytes=BUDGET, **options) as url:
        yield int(url.rsplit(":", 1)[1].strip("/"))


def head(port: int, framing: str, *, expect: bool = False) -> bytes:
    continued = "Expect: 100-continue\r\n" if expect else ""
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n{framing}\r\n{continued}\r\n").encode()


def ping(size: int, request_id: str = "p") -> bytes:
    """A ping padded with spaces to ``size`` bytes."""
    message = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode()
    return message + b" " * (size - len(message))


@contextlib.contextmanager
def budget_held(port: int) -> Iterator[list[socket.socket]]:
    """Two connections that declared a ``LIMIT``-byte body, were told ``100 Continue`` (their bytes are
    taken) and send nothing more: the budget is full until they close."""
    held: list[socket.socket] = []
    try:
        for _ in range(2):
            sock = socket.create_connection(("127.0.0.1", port))
            held.append(sock)
            sock.sendall(head(port, f"Content-Length: {LIMIT}", expect=True))
            sock.settimeout(10)
            assert sock.recv(65536).startswith(b"HTTP/1.1 100 ")
        yield held
    finally:
        for sock in held:
            sock.close()


def rest_of(sock: socket.socket, seconds: float = 10) -> bytes:
    """What the server sends on ``sock`` until it closes it (reading at most ``seconds``)."""
    sock.settimeout(seconds)
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


def busy_answer(status: int, headers: dict[str, str], body: bytes) -> None:
    assert status == 503
    assert headers["retry-after"] == "1"
    assert "(max_buffered_bytes)" in json.loads(body)["error"]["message"]


# -- F12: the 503 reaches a client that sends its whole body first -----------------------------
async def calls_through_a_full_budget(url: str, port: int) -> str:
    text = "x" * BIG
    async with mcp_client(url + "mcp") as session:
        with budget_held(port):
            with pytest.raises(MCPError) as refused:  # was: httpx ReadError, ending the whole session
                await session.call_tool("size", {"text": text})
            assert "(max_buffered_bytes)" in refused.value.error.message
        # The held connections are closed: the server gives their bytes back as it sees them go.
        deadline = time.monotonic() + 10
        while True:
            try:
                result = await session.call_tool("size", {"text": text})
                return str(result.content[0].text)  # type: ignore[union-attr]
            except MCPError as busy:
                refusal = busy.error.message
            assert "(max_buffered_bytes)" in refusal
            assert time.monotonic() < deadline, "the held bodies' bytes were never given back"
            await asyncio.sleep(0.05)


def test_the_official_clients_session_reads_the_503_and_its_retry_is_served() -> None:
    with served() as port:
        url = f"http://127.0.0.1:{port}/"
        assert asyncio.run(asyncio.wait_for(calls_through_a_full_budget(url, port), 60)) == str(BIG)


def test_a_client_sending_its_whole_body_reads_the_503_and_keeps_its_connection() -> None:
    with served() as port, socket.create_connection(("127.0.0.1", port)) as sock:
        with budget_held(port):
            sock.sendall(head(port, f"Content-Length: {BIG}") + ping(BIG))  # was: a reset while sending
            status, headers, body = read_reply(sock)
        busy_answer(status, headers, body)
        assert headers.get("connection", "").lower() != "close"
        deadline = time.monotonic() + 10
        while True:  # the same connection serves the retry, once the held bodies are given back
            sock.sendall(head(port, f"Content-Length: {BIG}") + ping(BIG, "retry"))
            status, _, body = read_reply(sock)
            if status == 200 or time.monotonic() > deadline:
                break
        assert (status, json.loads(body)["id"]) == (200, "retry")


def test_a_chunked_body_refused_503_is_read_to_its_end_and_the_connection_serves_on() -> None:
    body = ping(3 * MiB)
    pieces = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 65536]), body[i:i + 65536])
                      for i in range(0, len(body), 65536)) + b"0\r\n\r\n"
    with served() as port, socket.create_connection(("127.0.0.1", port)) as sock, budget_held(port):
        sock.sendall(head(port, "Transfer-Encoding: chunked") + pieces)
        busy_answer(*read_reply(sock))
        sock.sendall(head(port, "Content-Length: 100") + ping(100, "next"))  # small: it fits beside the held
        status, _, answer = read_reply(sock)
        assert (status, json.loads(answer)["id"]) == (200, "next")


def test_a_client_stalling_its_refused_body_is_cut_off_by_the_body_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    # The production value is 30 s; a shorter one keeps the test quick, the mechanism is the same.
    monkeypatch.setattr(http_server, "BODY_TIMEOUT", 3.0)
    with served() as port, socket.create_connection(("127.0.0.1", port)) as sock:
        with budget_held(port):
            sock.sendall(head(port, f"Content-Length: {BIG}") + ping(BIG)[:100_000])
            started = time.monotonic()
            busy_answer(*read_reply(sock))
        assert rest_of(sock, 15) == b""  # then nothing, and the connection ends
        assert time.monotonic() - started < 10


def test_a_refused_chunked_body_is_read_up_to_twice_the_limit_then_cut_off() -> None:
    limit = 64 * 1024
    with serve(build(), token="", max_request_bytes=limit, max_buffered_bytes=limit) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port)) as holder, \
                socket.create_connection(("127.0.0.1", port)) as sock:
            holder.sendall(head(port, f"Content-Length: {limit}", expect=True))
            holder.settimeout(10)
            assert holder.recv(65536).startswith(b"HTTP/1.1 100 ")
            sock.sendall(head(port, "Transfer-Encoding: chunked"))
            busy_answer(*read_reply(sock))
            piece = b"%x\r\n%s\r\n" % (8192, b" " * 8192)
            sent = 0
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                while sent < 64 * limit:  # a chunked body that never ends
                    sock.sendall(piece)
                    sent += 8192
            assert sent < 64 * limit  # the server stopped reading it (at twice the limit) and closed
            assert rest_of(sock) == b""


# -- F5: nothing follows an early answer to a client waiting for 100 Continue -----------------
@pytest.mark.parametrize(("refusal", "status"), [
    ("over the limit", 413),  # was: "HTTP/1.1 100 (Continue)" after the 413, on a connection left open
    ("budget full", 503),
    ("foreign origin", 403),
    ("unreadable length", 400),
])
def test_an_early_answer_to_expect_100_continue_is_final_and_closes(refusal: str, status: int) -> None:
    framing = {"over the limit": f"Content-Length: {LIMIT + 1}",  # read on and dropped were it sent
               "foreign origin": f"Content-Length: {BIG}\r\nOrigin: https://evil.example",
               "unreadable length": "Content-Length: 1e6"}.get(refusal, f"Content-Length: {BIG}")
    with served() as port, contextlib.ExitStack() as stack:
        if refusal == "budget full":
            stack.enter_context(budget_held(port))
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(head(port, framing, expect=True))
            answered, headers, _ = read_reply(sock)
            after = rest_of(sock)
    assert answered == status
    assert headers["connection"].lower() == "close"
    assert after == b"", after  # no 100 Continue after it, and the connection ends
