"""A TLS handshake sent to the runner's plain-HTTP server: answered at once, and said in the log.

A client given an ``https://`` URL for a plain-HTTP server opens with a TLS ClientHello: a record whose first byte
is ``0x16`` (handshake), which holds no ``CRLF CRLF``, so an HTTP server waits out its header timeout (30 s) for a
header block that never comes, and the client fails with an empty timeout. :func:`watch_first_read` makes a
connection's first header read of :class:`~nanohubmcp.transports.http_server.LimitedServer` also end at a first byte
``0x16``; such a connection is answered ``400`` in plain text (a TLS client reports it as "wrong version number",
the known sign of a plain-HTTP server) and closed, and the log says at WARNING (at most once a minute, with a count
of the others) that a client spoke TLS to this plain-HTTP server. The check costs nothing after a connection's first
read: the stream's own ``read_until_regex`` (or the one the server gave it) is put back when it is first called. It
owns no other request check.

Source: RFC 8446 § 5.1 (a TLS record's first byte is its content type; 22 = handshake).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from tornado.iostream import IOStream, StreamClosedError

log = logging.getLogger("nanohubmcp.http")

TLS_HANDSHAKE = b"\x16"
"""First byte of a TLS record carrying a handshake (a ClientHello): never the first byte of an HTTP request."""
FIRST_READ = rb"\n\r?\n|\x16"
"""The first header read of a connection: the end of a header block, or a byte ``0x16`` (a TLS handshake when it is
the first; one later in a header block is read past, :data:`HEADER_END`). Both alternatives start with a known byte,
so ``re`` scans for those two bytes: an ``\\A`` alternative made it try the whole pattern at every byte (review r39
R39-8: 14.8 µs a connection, now ~4.5)."""
HEADER_END = rb"\r?\n\r?\n"
"""The rest of a first header read that met a byte ``0x16`` past its first (no TLS: a malformed header block,
which Tornado's parser refuses)."""
ANSWER_TEXT = b"This server speaks plain HTTP, not TLS: use an http:// URL (or put a TLS proxy in front of it).\n"
ANSWER = (b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
          b"Content-Length: %d\r\n\r\n%s" % (len(ANSWER_TEXT), ANSWER_TEXT))
"""What a connection that opened with a TLS handshake is sent before it is closed."""
LOG_EVERY = 60.0
"""Seconds between two log lines about TLS clients (the ones between are counted in the next)."""


class TLSClients:
    """Log lines about clients speaking TLS to a plain-HTTP server: one, then at most one every :data:`LOG_EVERY`
    seconds with a count of those not logged (client-caused lines cannot flood the log).

    Args:
        clock: seconds, monotonic (tests may pass their own).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last: float | None = None
        self._unsaid = 0

    def saw(self, address: Any) -> None:
        """Log (or count) that the client at ``address`` (a socket address) opened with a TLS handshake."""
        now = self._clock()
        if self._last is not None and now - self._last < LOG_EVERY:
            self._unsaid += 1
            return
        more = f" ({self._unsaid} more since the last such line)" if self._unsaid else ""
        self._last, self._unsaid = now, 0
        client = address[0] if isinstance(address, tuple) and address else "a client"
        log.warning("a client (%s) spoke TLS (https://) to this plain-HTTP server%s: it was answered 400 and closed; "
                    "clients must use an http:// URL here, or put a TLS proxy (nginx, Caddy) in front for https://",
                    client, more)


TLS_CLIENTS = TLSClients()
"""The process's :class:`TLSClients`."""


def watch_first_read(stream: IOStream, address: Any, clients: TLSClients = TLS_CLIENTS) -> None:
    """Make ``stream``'s first ``read_until_regex`` (a new connection's first header read) also end at a first byte
    ``0x16``: such a connection is answered :data:`ANSWER`, closed and told to ``clients``; the read then fails with
    ``StreamClosedError``, which Tornado's request loop takes as a closed connection (no other log line)."""

    later = stream.__dict__.get("read_until_regex")  # (the server's own reader, when it gave the stream one)

    def first_read(regex: bytes, max_bytes: int | None = None) -> Awaitable[bytes]:
        if later is None:  # this connection's later reads are the stream's own
            del stream.read_until_regex
        else:
            stream.read_until_regex = later  # type: ignore[method-assign]
        read = IOStream.read_until_regex(stream, FIRST_READ, max_bytes)
        ended: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

        def on_read(done: asyncio.Future[bytes]) -> None:
            if ended.done():  # (cancelled by its reader)
                return
            if done.cancelled():
                ended.cancel()
                return
            error = done.exception()
            if error is not None:
                ended.set_exception(error)
            elif done.result() == TLS_HANDSHAKE:
                clients.saw(address)
                _answer_and_close(stream)
                ended.set_exception(StreamClosedError())
            elif done.result().endswith(TLS_HANDSHAKE):  # a 0x16 inside the header block: read on to its end
                head = done.result()
                left = None if max_bytes is None else max(1, max_bytes - len(head))
                rest = IOStream.read_until_regex(stream, HEADER_END, left)
                rest.add_done_callback(lambda more: _joined(ended, head, more))  # type: ignore[attr-defined]
            else:
                ended.set_result(done.result())

        read.add_done_callback(on_read)  # type: ignore[attr-defined]  # (a Tornado read is an asyncio future)
        return ended

    stream.read_until_regex = first_read  # type: ignore[method-assign]


def _joined(ended: asyncio.Future[bytes], head: bytes, more: asyncio.Future[bytes]) -> None:
    if ended.done():
        return
    if more.cancelled():
        ended.cancel()
    elif more.exception() is not None:
        ended.set_exception(more.exception())  # type: ignore[arg-type]
    else:
        ended.set_result(head + more.result())


def _answer_and_close(stream: IOStream) -> None:
    try:
        written = stream.write(ANSWER)
    except StreamClosedError:
        return
    written.add_done_callback(lambda done: _close(stream, done))


def _close(stream: IOStream, written: asyncio.Future[None]) -> None:
    written.exception()  # (retrieved: a client gone first is no error)
    stream.close()
