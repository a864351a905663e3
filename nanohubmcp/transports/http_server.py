"""The limits of an HTTP message before a handler runs: header size, body time, body size.

:class:`LimitedApplication` (the application :func:`~nanohubmcp.transports.routes.make_app`
builds, on the runner's server or on one of the user's own) wraps every request:

- **Header block.** A request whose header block is over :data:`MAX_HEADER_BYTES` is answered
  ``431 Request Header Fields Too Large`` (RFC 6585 § 5) with a JSON body saying the limit,
  before any route sees it (Tornado itself closes the connection without a word). The runner's
  server reads up to :data:`READ_HEADER_BYTES`; beyond it the connection is closed unanswered
  (nobody reads a megabyte of headers to refuse it).
- **Slow bodies.** A request body not complete :data:`BODY_TIMEOUT` seconds after its headers
  loses its connection (a client trickling its body cannot hold a connection): every body being
  read on a loop is timed in one table that one timer sweeps (:class:`BodyDeadlines`), instead
  of a timer (or Tornado's ``body_timeout`` future chain) per request.
- **Body size.** A POST route's handler gets its body buffered by Tornado when its
  ``Content-Length`` is within the route's ``max_request_bytes`` (no streaming round trips: the
  common case); any other body goes to the handler's streamed twin, which answers 413 before
  buffering it (:mod:`.bodies`).

Source: RFC 6585 § 5 (431); RFC 9110 § 15.5 (client errors); RFC 9112 § 6 (message body length).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

import tornado.web
from tornado import httputil
from tornado.http1connection import HTTP1Connection

from ..errors import InvalidRequest, error_response
from ..protocol import jsonenc
from .base import BodyReadingHandler
from .bodies import streamed_twin

MAX_HEADER_BYTES = 64 * 1024
"""Largest header block (request line included) a request may have; 431 above it."""
READ_HEADER_BYTES = 1024 * 1024
"""Largest header block read at all; above it the connection is closed unanswered."""
HEADER_TIMEOUT = 30.0
"""Seconds a connection may take to send a request's headers, counted from the end of the
previous request (so it is also how long an idle keep-alive connection stays open): a
client trickling its headers byte by byte cannot hold a connection for minutes."""
BODY_TIMEOUT = 30.0
"""Seconds a client has to send a request body once its headers arrived (slowloris guard)."""
SWEEP_SECONDS = 1.0
"""How often the body table is swept while it holds a request (at most; a quarter of the timeout
when shorter): a body is given up between BODY_TIMEOUT and BODY_TIMEOUT + SWEEP_SECONDS seconds
after its headers."""


class BodyDeadlines:
    """The requests of one event loop still reading their bodies, and their deadlines.

    Args:
        loop: the loop the requests are served on (every method runs there).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._pending: dict[object, tuple[float, Callable[[], None]]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._interval = SWEEP_SECONDS

    def __len__(self) -> int:
        """How many bodies are being timed."""
        return len(self._pending)

    def add(self, key: object, seconds: float, expire: Callable[[], None]) -> None:
        """Call ``expire`` once ``seconds`` have passed, unless :meth:`discard` comes first."""
        self._pending[key] = (self._loop.time() + seconds, expire)
        if self._timer is None:
            self._interval = min(SWEEP_SECONDS, seconds / 4)
            self._timer = self._loop.call_later(self._interval, self._sweep)

    def discard(self, key: object) -> None:
        """Forget ``key`` (its body arrived, or its connection closed)."""
        self._pending.pop(key, None)

    def _sweep(self) -> None:
        self._timer = None
        now = self._loop.time()
        expired = [key for key, (deadline, _) in self._pending.items() if deadline <= now]
        for key in expired:
            entry = self._pending.pop(key, None)
            if entry is not None:
                entry[1]()
        if self._pending:
            self._timer = self._loop.call_later(self._interval, self._sweep)


_DEADLINES_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, BodyDeadlines] = weakref.WeakKeyDictionary()


def body_deadlines(loop: asyncio.AbstractEventLoop) -> BodyDeadlines:
    """The table of ``loop`` (made on first use)."""
    table = _DEADLINES_BY_LOOP.get(loop)
    if table is None:
        table = _DEADLINES_BY_LOOP[loop] = BodyDeadlines(loop)
    return table


def buffered_length(headers: httputil.HTTPHeaders, limit: int) -> int | None:
    """The length of a body Tornado may buffer for the handler: its ``Content-Length`` when that
    is a plain number of at most ``limit`` and the body is not chunked (0 with neither header:
    no body, RFC 9112 § 6.3); else None (the streamed twin reads it, and refuses it or answers
    400 for a malformed length)."""
    if "Transfer-Encoding" in headers:
        return None
    length = headers.get("Content-Length")
    if length is None:
        return 0
    if not (length.isdigit() and length.isascii()):
        return None
    declared = int(length)
    return declared if declared <= limit else None


class LimitedApplication(tornado.web.Application):
    """The Tornado application of :func:`~nanohubmcp.transports.routes.make_app`, with the
    limits of the module text. A :class:`~nanohubmcp.transports.base.BodyReadingHandler`
    route's limit is its ``config.max_request_bytes`` (from the URLSpec kwargs)."""

    def start_request(self, server_conn: object, request_conn: httputil.HTTPConnection) -> httputil.HTTPMessageDelegate:
        return _MessageLimits(super().start_request(server_conn, request_conn), request_conn)

    def get_handler_delegate(
        self,
        request: httputil.HTTPServerRequest,
        target_class: type[tornado.web.RequestHandler],
        target_kwargs: dict[str, Any] | None = None,
        path_args: list[bytes] | None = None,
        path_kwargs: dict[str, bytes] | None = None,
    ) -> Any:
        connection = request.connection
        if issubclass(target_class, BodyReadingHandler) and target_kwargs and isinstance(connection, HTTP1Connection):
            limit = target_kwargs["config"].max_request_bytes
            length = buffered_length(request.headers, limit)
            if length is None:
                target_class = streamed_twin(target_class)
            elif length:
                # A server built with a smaller max_body_size would refuse it with a bare 400.
                connection.set_max_body_size(limit)
        return super().get_handler_delegate(request, target_class, target_kwargs, path_args, path_kwargs)


class _MessageLimits(httputil.HTTPMessageDelegate):
    """One request on its way in: its header block measured, its body timed (module text)."""

    __slots__ = ("connection", "deadlines", "delegate", "refused")

    def __init__(self, delegate: httputil.HTTPMessageDelegate, connection: httputil.HTTPConnection) -> None:
        self.delegate = delegate
        self.connection = connection
        self.refused = False
        self.deadlines: BodyDeadlines | None = None

    def headers_received(self, start_line: Any, headers: httputil.HTTPHeaders) -> Any:
        size = len(start_line.method) + len(start_line.path) + len(start_line.version) + 4
        for name, value in headers.get_all():
            size += len(name) + len(value) + 4
        if size > MAX_HEADER_BYTES:
            self._refuse_headers(size)
            return None
        connection = self.connection
        if isinstance(connection, HTTP1Connection) and (
                "Transfer-Encoding" in headers or headers.get("Content-Length", "0") != "0"):
            # The connection's own loop (asyncio.get_running_loop() costs a getpid system call on 3.11).
            loop = getattr(connection.stream.io_loop, "asyncio_loop", None) or asyncio.get_running_loop()
            deadlines = self.deadlines = body_deadlines(loop)
            deadlines.add(self, BODY_TIMEOUT, connection.close)
        return self.delegate.headers_received(start_line, headers)

    def _refuse_headers(self, size: int) -> None:
        self.refused = True
        body = jsonenc.dumpb(error_response(InvalidRequest(
            f"Request Header Fields Too Large: the headers take {size} bytes, the limit is {MAX_HEADER_BYTES}")))
        reply = httputil.HTTPHeaders({"Content-Type": "application/json", "Content-Length": str(len(body)),
                                      "Connection": "close"})
        self.connection.write_headers(httputil.ResponseStartLine("HTTP/1.1", 431, "Request Header Fields Too Large"),
                                      reply, body)
        self.connection.finish()

    def data_received(self, chunk: bytes) -> Any:
        return None if self.refused else self.delegate.data_received(chunk)

    def finish(self) -> None:
        if self.deadlines is not None:
            self.deadlines.discard(self)
        if not self.refused:
            self.delegate.finish()

    def on_connection_close(self) -> None:
        if self.deadlines is not None:
            self.deadlines.discard(self)
        if not self.refused:
            self.delegate.on_connection_close()
