"""How one POSTed request is answered over HTTP: JSON, or an SSE stream once a related
message (progress, a log message, a server→client request) must go out before the response.

Source: MCP 2025-11-25, Basic § Transports § Streamable HTTP (sending messages to the server:
the server answers ``application/json`` or ``text/event-stream``); SEP-1699 (priming event,
server-side disconnect of a resumable stream).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from ..errors import HANDSHAKE_ROUTE, RequestCancelled, error_response
from ..server.wire.request import RequestContext
from ..server.wire.streams import OutboundStream
from .base import BaseHandler

if TYPE_CHECKING:
    from .sse_writer import SSEWriter


class ResponseChannel:
    """Answers one POSTed request: JSON by default, SSE once a related message must go first.

    Args:
        handler: the POST's handler.
        request: the request it answers; the channel attaches to the request's stream when the
            stream is made (:meth:`RequestContext.on_stream_opened`: at its first related message,
            so a call answered with JSON makes none).
        priming: a resumable stream opens with a priming event (SEP-1699, from 2025-11-25).
        event_stream: the POST's ``Accept`` names ``text/event-stream``: a request the client
            cancels before anything went out is answered with an empty stream (:meth:`withdraw`).
    """

    def __init__(self, handler: BaseHandler, request: RequestContext, *, priming: bool,
                 event_stream: bool = False) -> None:
        self.handler = handler
        self.request_id = request.message.id
        self.session = request.session
        self.priming = priming
        self.event_stream = event_stream
        self.stream: OutboundStream | None = None
        self.writer: SSEWriter | None = None
        self.priming_id: str | None = None
        self.over = False
        request.on_stream_opened(self._opened)

    def _opened(self, stream: OutboundStream) -> None:
        self.stream = stream
        if self.over:  # made after the exchange ended: nothing goes out on this response any more
            self._forget_stream()
            return
        priming = self.priming and stream.resumable
        # Reserve the priming event's id first, so every message's id comes after it.
        self.priming_id = stream.next_id() if priming else None
        stream.attach(self._sink)
        if priming:
            stream.set_hangup_callback(self._hangup)

    def _start(self) -> SSEWriter:
        if self.writer is None:
            from .sse_writer import SSEWriter  # (with the first answer sent as a stream, not with a JSON one)

            self.writer = SSEWriter(self.handler, self.handler.config.keepalive_seconds,
                                    unsendable=self.handler.connection.unsendable_parts)
            self.writer.set_disconnect_callback(self._lost)
            self.writer.start(priming_id=self.priming_id)
        return self.writer

    def _sink(self, event_id: str | None, message: dict[str, Any]) -> None:
        self._start().send(event_id, message)

    def _hangup(self) -> None:
        """Close the HTTP response early; the stream lives on for a resuming GET."""
        writer = self._start()
        if self.stream is not None:
            self.stream.detach(self._sink)
        writer.finish()

    def _lost(self) -> None:
        if self.stream is not None:
            self.stream.detach(self._sink)

    def connection_lost(self) -> None:
        """The client closed the connection (Tornado's ``on_connection_close``)."""
        if self.writer is not None:
            self.writer.connection_lost()
        else:
            self._lost()

    def finish(self, response: dict[str, Any], route: str = HANDSHAKE_ROUTE) -> Awaitable[None] | None:
        """Send the response: as the stream's last event, or as a JSON body with the status of
        ``route`` (:meth:`BaseHandler.reply_status`). Answers what :meth:`BaseHandler.send_json`
        or :meth:`SSEWriter.finish` answers: the writing of a kept file's text, to await, or None (sent)."""
        self.over = True
        if self.writer is not None and self.stream is not None:
            self.stream.send(response, final=True)
            self.stream.detach(self._sink)  # the response is over; keep no handler alive
            self.stream.set_hangup_callback(None)
            return self.writer.finish()
        self._forget_stream()
        handler = self.handler
        status = handler.reply_status(response, route)
        if not handler.finished:
            return handler.send_json(status, response)
        return None

    def withdraw(self, reason: str | None = None) -> None:
        """End the exchange of a request the client cancelled (``notifications/cancelled``).

        A cancelled request gets no response (MCP 2025-11-25, Utilities § Cancellation), but a
        POST holding a request is answered with an SSE stream or a JSON body, never ``202``
        (that is for notifications and responses; Transports § Streamable HTTP). So an SSE
        response ends after what it carried; a POST accepting ``text/event-stream`` with nothing
        sent yet gets an empty one (``200``, no event); a POST accepting JSON only gets the error
        ``-32800`` "Request cancelled: <reason>", the one answer it can take."""
        self.over = True
        writer = self.writer
        self._forget_stream()
        handler = self.handler
        if writer is not None:
            writer.finish()
        elif handler.finished:
            return
        elif self.event_stream:
            from .sse_writer import SSEWriter

            writer = SSEWriter(handler, 0, unsendable=handler.connection.unsendable_parts)
            writer.start()
            writer.finish()
        else:
            cancelled = RequestCancelled(
                f"Request cancelled (notifications/cancelled): {reason or 'cancelled by the client'}")
            handler.send_json(200, error_response(cancelled, self.request_id))

    def _forget_stream(self) -> None:
        if self.stream is not None:
            self.stream.done = True
            self.stream.detach(self._sink)
            self.stream.set_hangup_callback(None)  # a bound method of ours: a cycle through the handler
            if self.session is not None:
                # Nothing more comes on this stream: nothing on it is left to resume.
                self.session.streams.pop(self.stream.stream_id, None)
