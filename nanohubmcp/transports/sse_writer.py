"""Writing Server-Sent Events on a Tornado response: framing, priming, keep-alive, disconnects.

Frames follow the HTML Living Standard § Server-sent events: ``id:``, ``event:``, ``data:``
lines and a blank line; comments (``: ping``) keep proxies from closing idle streams.
``X-Accel-Buffering: no`` asks nginx-style proxies not to buffer (MCP 2026-07-28, Transports §
Streamable HTTP recommends it for every era).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import tornado.iostream
import tornado.web
from tornado.http1connection import HTTP1Connection

from ..protocol import jsonenc
from .unsent import owner_of

log = logging.getLogger("nanohubmcp.http")

RETRY_MS = 1000
"""Reconnection delay suggested to clients with the priming event (SEP-1699)."""
WRITE_BUFFER_BYTES = 8 * 1024 * 1024
"""Most bytes of events one stream may hold unsent (its client reads too slowly) before the
connection is closed. One event larger than this still goes out alone. A Streamable HTTP
client resumes with ``Last-Event-ID`` (the session keeps recent events); a legacy SSE
session ends with its stream."""


def frame(message: Any, event_id: str | None = None, event: str = "message") -> bytes:
    """One SSE event carrying a JSON message (JSON text has no raw newlines)."""
    head = f"id: {event_id}\n" if event_id else ""
    # (dumpb: a lone surrogate a client sent, as a request id or echoed in a result, written as its \u escape)
    return b"".join((f"{head}event: {event}\ndata: ".encode(), jsonenc.dumpb(message), b"\n\n"))


class SSEWriter:
    """Streams events on one Tornado response.

    Args:
        handler: the request handler whose response becomes the stream.
        keepalive: seconds between ``: ping`` comments (0 = none).
    """

    def __init__(self, handler: tornado.web.RequestHandler, keepalive: float) -> None:
        self.handler = handler
        self.started = False
        self.closed = False
        self._keepalive = keepalive
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._flush_due = False
        self._queued = 0  # bytes written since the last flush
        self._unsent = 0  # bytes flushed but not yet taken by the socket
        self._on_disconnect: Callable[[], None] | None = None

    def set_disconnect_callback(self, callback: Callable[[], None] | None) -> None:
        """Call ``callback`` once when the client goes away (:meth:`connection_lost`)."""
        self._on_disconnect = callback

    def start(self, *, status: int = 200, priming_id: str | None = None) -> None:
        """Send the headers (and, when given, the priming event with ``retry``)."""
        if self.started:
            return
        self.started = True
        h = self.handler
        h.set_status(status)
        h.set_header("Content-Type", "text/event-stream")
        h.set_header("Cache-Control", "no-cache, no-transform")
        h.set_header("X-Accel-Buffering", "no")
        if priming_id is not None:
            h.write(f"id: {priming_id}\nretry: {RETRY_MS}\ndata: \n\n".encode())
        self._flush_soon()
        self._arm_keepalive()

    def send(self, event_id: str | None, message: Any) -> None:
        """Write one message event (the stream must be started)."""
        self.send_raw(frame(message, event_id))

    def send_raw(self, data: bytes) -> None:
        """Write pre-framed bytes (the legacy ``endpoint`` event); a client that has left more
        than ``WRITE_BUFFER_BYTES`` unread is disconnected instead."""
        if self.closed:
            return
        behind = self._queued + self._unsent
        if behind and behind + len(data) > WRITE_BUFFER_BYTES:
            log.warning("closing a stream whose client left %d bytes unread", behind)
            connection = self.handler.request.connection
            if isinstance(connection, HTTP1Connection):
                connection.close()
            self.connection_lost()
            return
        self._queued += len(data)
        self.handler.write(data)
        self._flush_soon()

    # Keep-alive: one timer re-armed after each ping (cheaper than a PeriodicCallback per stream).
    def _arm_keepalive(self) -> None:
        if self._keepalive > 0 and not self.closed:
            self._timer = self._loop.call_later(self._keepalive, self._ping)

    def _ping(self) -> None:
        self._timer = None
        if not self.closed:
            self.send_raw(b": ping\n\n")
            self._arm_keepalive()

    # Writes made in one loop iteration (headers, progress, the result) leave in one send.
    def _flush_soon(self) -> None:
        if not self._flush_due:
            self._flush_due = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_due = False
        if self.closed:
            return
        size, self._queued = self._queued, 0
        self._unsent += size
        future = self.handler.flush()
        if not future.done():  # also in the server's budget of unsent bytes (every response's)
            budget = getattr(getattr(self.handler, "config", None), "unsent", None)
            if budget is not None:
                budget.hold(self.handler.request.connection, size, future, owner_of(self.handler))
        future.add_done_callback(lambda done: self._flushed(done, size))

    def _flushed(self, future: Any, size: int) -> None:
        self._unsent -= size
        if future.exception() is not None:
            self.connection_lost()

    def connection_lost(self) -> None:
        """The client went away: stop writing and tell the owner once."""
        if self.closed:
            return
        self.closed = True
        self._stop_timer()
        if self._on_disconnect is not None:
            callback, self._on_disconnect = self._on_disconnect, None
            callback()

    def finish(self) -> None:
        """End the stream from our side (pending writes go out with the terminator)."""
        self._stop_timer()
        self._on_disconnect = None  # its owner (a response channel) holds this writer: no cycle left
        if not self.closed:
            self.closed = True
            with contextlib.suppress(RuntimeError, tornado.iostream.StreamClosedError):
                self.handler.finish()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
