"""The answers a request's limits give before any handler runs (:mod:`.http_server`): a JSON-RPC error body
saying the limit, with ``Connection: close``; and a header block too large to read.

Source: RFC 6585 § 5 (431); RFC 9110 § 15.5.9 (408).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from tornado import httputil
from tornado.http1connection import HTTP1Connection

from ..errors import InvalidRequest, error_response
from ..protocol import jsonenc

CLOSE_AFTER_408 = 5.0
"""Seconds a 408's connection stays open at most while its answer is written (a client that reads nothing)."""


if TYPE_CHECKING:  # for type checkers only: a Protocol class costs ~0.14 M instructions to make at import

    class Deadlines(Protocol):
        """What :func:`answer_late_body` needs of :class:`.http_server.Deadlines`."""

        def add(self, key: object, seconds: float, expire: Callable[[], None]) -> None: ...


def answer_and_close(connection: httputil.HTTPConnection, status: int, reason: str, problem: str) -> None:
    """Answer ``status`` (``reason``) on ``connection`` with the error ``"<reason>: <problem>"`` and close it once
    the answer is written (``Connection: close``)."""
    body = jsonenc.dumpb(error_response(InvalidRequest(f"{reason}: {problem}")))
    reply = httputil.HTTPHeaders({"Content-Type": "application/json", "Content-Length": str(len(body)),
                                  "Connection": "close"})
    connection.write_headers(httputil.ResponseStartLine("HTTP/1.1", status, reason), reply, body)
    connection.finish()


def answer_late_body(connection: HTTP1Connection, deadlines: Deadlines | None, key: object, waited: float) -> None:
    """A body did not arrive in time (``waited`` seconds after its headers): answer 408 (``Connection: close``) on
    ``connection`` when nothing was answered yet, then close (once the answer is written, or after
    :data:`CLOSE_AFTER_408` seconds, ``key``'s deadline in ``deadlines``); else just close."""
    if connection._response_start_line is not None or connection.stream.closed():  # (an answer began)
        connection.close()
        return
    if deadlines is not None:
        deadlines.add(key, CLOSE_AFTER_408, connection.close)
    # (the body is unread: Tornado closes the connection once the answer is written)
    answer_and_close(connection, 408, "Request Timeout", f"the body did not arrive within {waited:g} s of its headers")


class UnreadHeaders(httputil.HTTPHeaders):
    """The headers of a block too large to serve, left unread (none). ``size``: the block's bytes as sent but the
    blank line that ends it (what the 431 names: a block padded with whitespace or blank lines counts them)."""

    size: int


def unread_block(data: bytes) -> tuple[str, UnreadHeaders]:
    """``data`` (a request's start line and header block, too large to serve) as its start line, as Tornado reads
    it, and :class:`UnreadHeaders`: nothing else of it is parsed."""
    first = data.lstrip(b"\r\n")
    headers = UnreadHeaders()
    headers.size = len(data) - 2
    return first[:first.find(b"\n")].decode("latin1").rstrip("\r"), headers
