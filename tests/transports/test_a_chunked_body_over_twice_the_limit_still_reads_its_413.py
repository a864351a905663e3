"""A client sending a chunked body over twice ``max_request_bytes`` before it reads still reads the 413.

Before: such a body (``Transfer-Encoding: chunked``) was answered 413 as it crossed the limit, read on and dropped
up to twice the limit, then the connection was closed under a client still sending: a connection reset, where the
413 was lost (a body declared that large by its ``Content-Length`` already got its 413 and a lingering close). Now
the rest of a refused chunked body is read and dropped to its last chunk, bounded in bytes (64 times the limit)
and in time (the body's deadline), and the connection serves the client's next request; the bytes the body took
of the budget of bodies being received are given back at the 413, as nothing of it is kept.

Source: RFC 9110 § 15.5.14 (413); RFC 9112 § 7.1 (chunked), § 9.6 (tear-down).
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator

import pytest
from raw_http import read_reply
from support import serve
from test_a_client_still_sending_reads_the_early_answer import build, head, ping, rest_of

from nanohubmcp.transports import http_server
from nanohubmcp.transports.bodies import CHUNKED_DROP_FACTOR

LIMIT = 64 * 1024
"""``max_request_bytes`` of the server under test."""
PIECE = 16 * 1024


@contextlib.contextmanager
def served(**options: object) -> Iterator[int]:
    with serve(build(), token="", max_request_bytes=LIMIT, **options) as url:
        yield int(url.rsplit(":", 1)[1].strip("/"))


def chunks(size: int) -> bytes:
    """``size`` bytes of spaces as chunks of :data:`PIECE` bytes (no last chunk)."""
    piece = b"%x\r\n%s\r\n" % (PIECE, b" " * PIECE)
    return piece * (size // PIECE)


@pytest.mark.parametrize("times", [3, 40])
def test_a_client_sending_its_whole_chunked_body_reads_the_413_and_keeps_its_connection(times: int) -> None:
    with served() as port, socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head(port, "Transfer-Encoding: chunked") + chunks(times * LIMIT) + b"0\r\n\r\n")  # was: reset
        status, headers, body = read_reply(sock)
        assert status == 413
        assert f"the limit is {LIMIT} bytes (max_request_bytes)" in json.loads(body)["error"]["message"]
        assert headers.get("connection", "").lower() != "close"
        message = ping(100, "next")  # the same connection serves the next request: the body was read to its end
        sock.sendall(head(port, f"Content-Length: {len(message)}") + message)
        status, _, answer = read_reply(sock)
        assert (status, json.loads(answer)["id"]) == (200, "next")


def test_a_chunked_body_that_never_ends_is_cut_off_past_its_byte_bound() -> None:
    bound = CHUNKED_DROP_FACTOR * LIMIT
    with served() as port, socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head(port, "Transfer-Encoding: chunked"))
        piece = chunks(4 * PIECE)
        sent = 0
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            while sent < 8 * bound:  # a chunked body that never ends
                sock.sendall(piece)
                sent += 4 * PIECE
        assert sent < 8 * bound  # the server stopped reading it past its bound and closed


def test_a_client_stalling_its_refused_chunked_body_is_cut_off_by_the_body_timer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The production value is 30 s; a shorter one keeps the test quick, the mechanism is the same.
    monkeypatch.setattr(http_server, "BODY_TIMEOUT", 3.0)
    with served() as port, socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head(port, "Transfer-Encoding: chunked") + chunks(3 * LIMIT))
        started = time.monotonic()
        assert read_reply(sock)[0] == 413
        assert rest_of(sock, 15) == b""  # then nothing, and the connection ends when the body's time is up
        assert time.monotonic() - started < 10


def test_a_refused_chunked_body_gives_its_budget_back_at_the_413() -> None:
    with served(max_buffered_bytes=LIMIT) as port, \
            socket.create_connection(("127.0.0.1", port)) as refused, \
            socket.create_connection(("127.0.0.1", port)) as other:
        refused.sendall(head(port, "Transfer-Encoding: chunked") + chunks(2 * LIMIT))  # still sending after this
        assert read_reply(refused)[0] == 413
        body = ping(LIMIT - 100, "other")  # takes its size of the budget (not all in the read of its headers)
        other.sendall(head(port, f"Content-Length: {len(body)}") + body)
        status, _, answer = read_reply(other)
        assert (status, json.loads(answer)["id"]) == (200, "other")  # was: 503, the refused body holding the budget
