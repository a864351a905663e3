"""Writing Server-Sent Events on a Tornado response: framing, priming, keep-alive, disconnects.

Frames follow the HTML Living Standard § Server-sent events: ``id:``, ``event:``, ``data:``
lines and a blank line; comments (``: ping``) keep proxies from closing idle streams.
``X-Accel-Buffering: no`` asks nginx-style proxies not to buffer (MCP 2026-07-28, Transports §
Streamable HTTP recommends it for every era).

An event whose message holds a kept file's text (a :class:`~nanohubmcp.protocol.text_pieces.TextPieces`:
a ``resources/read`` answered on a stream) is written a piece at a time (:func:`.pieces.write_text`),
each piece taken by the socket (and held in the server's unsent budget meanwhile) before the next is
read; its ``data:`` line is the one the whole text gives, byte for byte, as JSON text has no raw line
break. So is any event larger than :data:`PIECE_BYTES` (a batch's answer holding such a text whole).
Events sent meanwhile wait, in order, behind it, within :data:`WRITE_BUFFER_BYTES`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import tornado.iostream
import tornado.web
from tornado.http1connection import HTTP1Connection

from ..protocol import jsonenc, text_pieces
from ..protocol.sendable import Parts
from .access_log import request_summary
from .unsent import owner_of

log = logging.getLogger("nanohubmcp.http")

RETRY_MS = 1000
"""Reconnection delay suggested to clients with the priming event (SEP-1699)."""
WRITE_BUFFER_BYTES = 8 * 1024 * 1024
"""Most bytes of events one stream may hold unsent (its client reads too slowly) before the
connection is closed. One event larger than this still goes out alone. A Streamable HTTP
client resumes with ``Last-Event-ID`` (the session keeps recent events); a legacy SSE
session ends with its stream."""

PIECE_BYTES = 1024 * 1024
"""An event larger than this is written this many bytes at a time, each taken by the socket before the
next (as a kept file's text is); while it waits behind another it counts as one piece against
:data:`WRITE_BUFFER_BYTES`, never as its whole size (which closed the stream of a client reading promptly).
One such event waits at most: a second one closes the stream as one whose client left that much unread
(each is held whole while it waits)."""

Part = bytes | text_pieces.TextPieces


def frame_parts(message: Any, event_id: str | None = None, event: str = "message", *,
                unsendable: Callable[[Any, Exception], Parts]) -> list[Part]:
    """One SSE event carrying a JSON message, as parts: the event's head up to ``data:``, the message's
    JSON as :func:`~nanohubmcp.protocol.jsonenc.dumpb_parts` makes it (a kept file's text a part of its
    own), then the line's and the event's ends. Joined, a text as its escaped pieces, the bytes are those
    of the message's :func:`~nanohubmcp.protocol.jsonenc.dumpb` framed: one ``data:`` line, as compact
    JSON text holds no raw CR or LF (a line break inside a string is written ``\\n``). A response JSON cannot
    hold is framed as ``unsendable`` answers it (:meth:`.Connection.unsendable_parts`)."""
    head = f"id: {event_id}\n" if event_id else ""
    # (dumpb's bytes: a lone surrogate a client sent, as a request id or echoed in a result, as its \u escape)
    try:
        parts: Parts = jsonenc.dumpb_parts(message)
    except (TypeError, ValueError) as exc:  # a value JSON cannot hold: answered as an error
        parts = unsendable(message, exc)
    return [f"{head}event: {event}\ndata: ".encode(), *parts, b"\n\n"]


class _LargeEvent:
    """An event of bytes over :data:`PIECE_BYTES` waiting behind the one being written (charged one piece)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


class SSEWriter:
    """Streams events on one Tornado response.

    Args:
        handler: the request handler whose response becomes the stream.
        keepalive: seconds between ``: ping`` comments (0 = none).
        unsendable: the event of a response JSON cannot hold (the server's
            :meth:`.Connection.unsendable_parts`).
    """

    def __init__(self, handler: tornado.web.RequestHandler, keepalive: float, *,
                 unsendable: Callable[[Any, Exception], Parts]) -> None:
        self.handler = handler
        self._unsendable = unsendable
        self.started = False
        self.closed = False
        self._keepalive = keepalive
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._flush_due = False
        self._queued = 0  # bytes written since the last flush
        self._unsent = 0  # bytes flushed but not yet taken by the socket
        self._on_disconnect: Callable[[], None] | None = None
        self._writing: asyncio.Task[None] | None = None  # an event written a piece at a time
        self._waiting: deque[bytes | list[Part] | _LargeEvent] = deque()  # what was sent meanwhile, in order
        self._waiting_bytes = 0
        self._large_waiting = 0  # the size of the large event waiting (charged PIECE_BYTES), 0: none
        self._ended: asyncio.Future[None] | None = None  # finish() asked for while an event is written

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
        """Write one message event (the stream must be started); one holding a kept file's text a piece
        at a time (see the module text)."""
        parts = frame_parts(message, event_id, unsendable=self._unsendable)
        # (three parts: the message is one, bytes, as nearly every message is)
        if len(parts) == 3 or all(type(part) is bytes for part in parts):
            data = b"".join(parts)  # type: ignore[arg-type]  # (all bytes)
            if len(data) <= PIECE_BYTES:
                self.send_raw(data)
                return
            # A large event (a batch's kept read, the text whole): a piece at a time as a single read's is,
            # charged one piece, not its whole size, against the bytes its client left unread (trial36 Z4).
            if self.closed or self._over_budget(PIECE_BYTES):
                return
            parts = [data]
            if self._writing is not None:
                if self._large_waiting:  # one waits already, held whole: the client is that far behind
                    self._close_unread(self._queued + self._unsent + self._waiting_bytes + self._large_waiting)
                    return
                self._waiting.append(_LargeEvent(data))
                self._waiting_bytes += PIECE_BYTES
                self._large_waiting = len(data)
                return
        if self._writing is not None:
            self._waiting.append(parts)
        elif not self.closed:
            self._writing = self._loop.create_task(self._write_pieces(parts))

    def send_raw(self, data: bytes) -> None:
        """Write pre-framed bytes (the legacy ``endpoint`` event); a client that has left more
        than ``WRITE_BUFFER_BYTES`` unread is disconnected instead."""
        if self.closed or self._over_budget(len(data)):
            return
        if self._writing is not None:  # after the event being written
            self._waiting.append(data)
            self._waiting_bytes += len(data)
            return
        self._queued += len(data)
        self.handler.write(data)
        self._flush_soon()

    def _over_budget(self, size: int) -> bool:
        """Whether ``size`` more bytes pass what the client may leave unread; if so, the stream is closed."""
        behind = self._queued + self._unsent + self._waiting_bytes
        if not behind or behind + size <= WRITE_BUFFER_BYTES:
            return False
        self._close_unread(behind)
        return True

    def _close_unread(self, behind: int) -> None:
        log.warning("closing a stream whose client left %d bytes unread", behind)
        connection = self.handler.request.connection
        if isinstance(connection, HTTP1Connection):
            connection.close()
        self.connection_lost()

    async def _write_pieces(self, parts: list[Part]) -> None:
        from .pieces import Miscounted, write_text  # (only a kept file's text comes here: not loaded at start)

        try:
            for part in parts:
                if isinstance(part, bytes) and len(part) > PIECE_BYTES:
                    for start in range(0, len(part), PIECE_BYTES):
                        await self._put_drained(part[start:start + PIECE_BYTES])
                elif isinstance(part, bytes):
                    self._put(part)
                else:
                    await write_text(part, self._put_drained)
            self._flush_soon()  # (the event's end leaves with what follows it)
        except tornado.iostream.StreamClosedError:  # the client went away, or the unsent budget closed it
            log.debug("a client went away mid-event (%s)", request_summary(self.handler))
            self.connection_lost()  # (Tornado tells the handler nothing of a close the budget made)
        except (Miscounted, OSError, UnicodeDecodeError) as exc:  # (the file changed, or cannot be read now)
            # The event is cut short, never ended: a client dispatches no half message.
            log.error("closing a stream mid-event: %s", exc)
            connection = self.handler.request.connection
            if isinstance(connection, HTTP1Connection):
                connection.close()
            self.connection_lost()
        finally:
            self._writing = None
            self._next()

    def _put(self, data: bytes) -> None:
        connection = self.handler.request.connection
        if self.closed or (isinstance(connection, HTTP1Connection) and connection.stream.closed()):
            raise tornado.iostream.StreamClosedError()
        self._queued += len(data)
        self.handler.write(data)

    async def _put_drained(self, data: bytes) -> None:
        """Write ``data`` and wait until the socket took it (and what was written before)."""
        self._put(data)
        future = self._flush()
        if future is not None:
            await future

    def _next(self) -> None:
        """After an event written in pieces: what waited behind it, then a finish asked for meanwhile."""
        while self._waiting and not self.closed:
            item = self._waiting.popleft()
            if isinstance(item, bytes):
                self._waiting_bytes -= len(item)
                self._queued += len(item)
                self.handler.write(item)
                self._flush_soon()
            else:
                if isinstance(item, _LargeEvent):  # charged one piece while it waited
                    self._waiting_bytes -= PIECE_BYTES
                    self._large_waiting = 0
                    item = [item.data]
                self._writing = self._loop.create_task(self._write_pieces(item))
                return
        self._waiting.clear()
        self._waiting_bytes = self._large_waiting = 0
        ended, self._ended = self._ended, None
        if ended is not None:
            self._end()
            ended.set_result(None)

    # Keep-alive: one timer re-armed after each ping (cheaper than a PeriodicCallback per stream).
    def _arm_keepalive(self) -> None:
        if self._keepalive > 0 and not self.closed:
            self._timer = self._loop.call_later(self._keepalive, self._ping)

    def _ping(self) -> None:
        self._timer = None
        if not self.closed:
            if self._writing is None:  # (an event being written keeps the connection busy enough)
                self.send_raw(b": ping\n\n")
            self._arm_keepalive()

    # Writes made in one loop iteration (headers, progress, the result) leave in one send.
    def _flush_soon(self) -> None:
        if not self._flush_due:
            self._flush_due = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> asyncio.Future[None] | None:
        self._flush_due = False
        if self.closed:
            return None
        size, self._queued = self._queued, 0
        self._unsent += size
        future = self.handler.flush()
        if future.done():  # taken at once: counted off now, not in a later callback (events sent before
            self._flushed(future, size)  # it runs found a large event's pieces unsent; trial36 Z4)
            return future
        # also in the server's budget of unsent bytes (every response's)
        budget = getattr(getattr(self.handler, "config", None), "unsent", None)
        if budget is not None:
            budget.hold(self.handler.request.connection, size, future, owner_of(self.handler))
        future.add_done_callback(lambda done: self._flushed(done, size))
        return future

    def _flushed(self, future: Any, size: int) -> None:
        self._unsent -= size
        # (cancelled: closed under it, connection_lost is then a no-op; .exception() raised: trial41 Q13)
        if future.cancelled() or future.exception() is not None:
            self.connection_lost()

    def connection_lost(self) -> None:
        """The client went away: stop writing and tell the owner once."""
        if self.closed:
            return
        self.closed = True
        self._stop_timer()
        writing = self._writing
        if writing is not None and writing is not asyncio.current_task(self._loop):
            # (a write to a connection closed under it never completes: Tornado drops its future, and the
            # task would wait forever holding the event)
            writing.cancel()
        if self._on_disconnect is not None:
            callback, self._on_disconnect = self._on_disconnect, None
            callback()

    def finish(self) -> Awaitable[None] | None:
        """End the stream from our side (pending writes go out with the terminator).

        Returns:
            None, ended; or, while an event is written a piece at a time, the end after it and what
            waits behind it, which the handler awaits before it returns (Tornado would finish the
            response then).
        """
        self._stop_timer()
        self._on_disconnect = None  # its owner (a response channel) holds this writer: no cycle left
        if self._writing is not None and not self.closed:
            if self._ended is None:
                self._ended = self._loop.create_future()
            return self._ended
        self._end()
        return None

    def _end(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(RuntimeError, tornado.iostream.StreamClosedError):
                self.handler.finish()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
