"""Legacy HTTP+SSE transport (2024-11-05): ``GET /sse`` plus its POST endpoint.

``GET /sse`` opens a session and a stream whose first event, ``endpoint``, names where to POST:
``messages/?session_id=<id>``, a reference relative to the stream's own URL (RFC 3986 § 5.2),
so it resolves to the right place behind any prefix proxy, the weber proxy included, whether
or not the server was told the public URL. POSTs there (JSON only: 415 otherwise) are answered
``202 Accepted``; the response, and everything related to it, travels on that session's
stream only, an error of a request whose id is known included (invalid params found as the message is
read); a message that cannot be answered on the stream (no JSON, no usable id) gets its error as the POST's
answer (400). ``POST /?session_id=<id>`` is accepted too, for clients of the earlier package.
The session ends when its stream closes; a client closing it cancels what its session still runs in this process,
as its ``notifications/cancelled`` would (``Connection.peer_gone``: an ``async def`` tool's coroutine is cancelled);
with a shared state store, a call of the session another process serves is not cancelled so (it runs to its end). A
``resources/read`` of a large kept result goes on the stream as an event written from its file a piece at a time
(:mod:`.sse_writer`), unless the session's streams cross processes (a shared state store): its answer then travels
through the store's log whole.

Source: MCP 2024-11-05, Basic § Transports § HTTP with SSE (the endpoint event's URI).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from ..errors import ProtocolError, ServerBusy, SessionNotFound, UnsupportedMediaType, error_response
from ..protocol import versions
from ..server.connection import batch_refusal, serve_batch
from ..server.wire.request import LARGE_MESSAGE_BYTES, STREAMS_TEXT
from ..state.errors import StateUnavailable
from .base import BaseHandler
from .bodies import BodyReadingHandler
from .headers import json_body_type, session_query
from .sse_writer import SSEWriter

log = logging.getLogger("nanohubmcp.http")

CLOSED_STREAM = "the client closed its SSE stream"
"""Why the calls of a session whose client closed its ``GET /sse`` stream were cancelled (their records' error)."""


class LegacySSEHandler(BaseHandler):
    """``GET /sse``: one session per stream."""

    writer: SSEWriter | None = None

    async def get(self) -> None:
        if self._finished:
            return
        session = None
        try:
            session = self.connection.open_session(versions.V2024_11_05, self.principal)
            stream = session.get_standalone()
            # Before the endpoint event names the session: with a shared store the answers to its
            # POSTs are written to the session's log by whichever process serves them, and this
            # stream reads the log from where it ends now, so none written before the reader's
            # first read is skipped (however late that read comes on a busy machine).
            await stream.prepare()
            await self.connection.publish_session(session)  # its POSTs may reach another process
        except ServerBusy as exc:  # a session limit, or the shared store unreachable: 503
            if session is not None:
                self.connection.end_session(session.id)  # refused: nothing of it stays
            self.fail(exc)
            return
        writer = self.writer = SSEWriter(self, self.config.keepalive_seconds,
                                         unsendable=self.connection.unsendable_parts)
        writer.start()
        # A relative reference (RFC 3986 § 5), resolved by the client against the URL it used for
        # this stream: right behind a prefix proxy the server was never told about.
        up = "../" if self.request.path.endswith("/") else ""
        endpoint = f"{up}messages/?session_id={session.id}"
        writer.send_raw(f"event: endpoint\ndata: {endpoint}\n\n".encode())
        closed = asyncio.get_running_loop().create_future()
        running = session.in_flight  # (its requests being served, by id)

        def sink(event_id: str | None, message: dict[str, Any]) -> None:
            writer.send(None, message)

        def lost() -> None:
            if not closed.done():
                closed.set_result(None)

        def left() -> None:
            # The client closed its stream: no answer can reach it, so what its session still runs is its cancel,
            # as a closed 2026-07-28 POST's is (an async def tool's coroutine is cancelled). The session's end
            # below cancels the same requests, but as the server's own cancel, which leaves coroutines running.
            for request in list(running.values()):
                self.connection.peer_gone(request, CLOSED_STREAM)
            lost()

        writer.set_disconnect_callback(left)
        stream.set_close_callback(lost)
        stream.attach(sink)
        await closed
        self.connection.end_session(session.id)
        ending = writer.finish()
        if ending is not None:  # a kept file's text still being written
            await ending

    def on_connection_close(self) -> None:
        if self.writer is not None:
            self.writer.connection_lost()
        super().on_connection_close()  # a body still being read (a streamed twin's) ends the request quietly


class LegacyMessagesHandler(BodyReadingHandler):
    """``POST /messages/?session_id=<id>``."""

    async def post(self) -> None:
        body = self.received()
        if body is None:  # answered already (or the client is gone)
            return
        await post_legacy_message(self, session_query(self.request.query_arguments), body)


async def post_legacy_message(handler: Any, session_id: str | None, body: bytes) -> None:
    """Accept one message (``body``) for a legacy SSE session: 202 now, the reply on its stream.

    ``handler`` is a body-reading handler (a ``BodyReadingHandler``); ``body`` is what its ``received()`` gave.
    """
    connection = handler.connection
    if not json_body_type(handler.request.headers.get("Content-Type")):
        handler.fail(UnsupportedMediaType(
            "Unsupported Media Type: send the JSON-RPC message with 'Content-Type: application/json'"))
        return
    try:
        session = await connection.lookup_session(session_id, handler.principal)
    except StateUnavailable as exc:
        handler.fail(exc)
        return
    if session is None or session.transport != "sse":
        unknown = "Unknown session_id: open GET /sse first and POST to the endpoint it announces"
        handler.fail(connection.missing_session(unknown) if session is None else SessionNotFound(unknown))
        return
    large = len(body) >= LARGE_MESSAGE_BYTES  # parsed, and a call's arguments checked, on a worker thread
    parsed: Any = None
    try:
        parsed = await connection.parse_large(body) if large else connection.parse(body)
        if isinstance(parsed, list):
            refused = batch_refusal(session.version, parsed)
            if refused is not None:
                raise refused
    except ProtocolError as exc:
        if exc.request_id is not None and not isinstance(parsed, list):
            # one request whose id is known (invalid params: a progress token over 256 characters or
            # neither a string nor an integer, "params": 5) is answered where answers are read: on the
            # stream, as its handler's -32602 would be (a 400 here lost it: trial42 T42-6)
            handler.send_empty(202)
            session.get_standalone().send(error_response(exc, exc.request_id))
            return
        handler.fail(exc)
        return
    stream = session.get_standalone()
    if isinstance(parsed, list):
        handler.send_empty(202)
        replies = await serve_batch(connection, parsed, version=session.version, session=session, stream=stream,
                                    principal=handler.principal, trace_headers=handler.request.headers, large=large)
        if replies:
            stream.send(replies)  # a batch reply is one JSON array
        return
    request = connection.request(parsed, version=session.version, session=session, stream=stream,
                                 principal=handler.principal, trace_headers=handler.request.headers)
    request.large = large
    if session.relay is None:  # its stream is written in this process: a kept file's text a piece at a time
        request.slots[STREAMS_TEXT] = True
    # The POST is answered 202 once the call pipeline let the request through to its handler; a
    # refusal before that with an HTTP status of its own (a tool's scopes the token lacks: 403)
    # is this POST's answer, anything else goes on the stream like every response.
    request.set_accepted_callback(functools.partial(handler.send_empty, 202))
    reply = await connection.serve(request)
    response = reply.message
    if not handler.finished:
        status = handler.reply_status(response) if response is not None else 200
        if response is not None and status >= 400:
            handler.send_error_json(status, response)
            return
        handler.send_empty(202)
    if response is not None:  # a request the client cancelled gets no response
        stream.send(response)
