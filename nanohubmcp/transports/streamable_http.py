"""Streamable HTTP: ``POST``/``GET``/``DELETE`` on the MCP endpoint (``/mcp``, also ``POST /``).

POST carries one message (or, for 2024-11-05/2025-03-26 sessions, a batch). A request is
answered with JSON, or — when the client accepts ``text/event-stream`` and the call produces
progress, log messages or server→client requests — with an SSE stream carrying those first and
the response last. Notifications and client responses get 202 with no body. An answer holding a
large kept result's text (``resources/read``) writes it from its file a piece at a time, as a JSON
body (:mod:`.pieces`) or as an SSE event (:mod:`.sse_writer`).

GET opens the session's stream for messages unrelated to a request, or resumes a stream after
``Last-Event-ID``. DELETE ends the session.

Source: MCP 2025-11-25, Basic § Transports § Streamable HTTP (sending, listening, session
management, resumability, protocol version header).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from ..errors import (
    MODERN_ROUTE,
    InvalidRequest,
    MethodNotAllowed,
    NotAcceptable,
    ProtocolError,
    StreamConflict,
    UnsupportedMediaType,
)
from ..protocol import jsonrpc
from ..server.connection import Incoming, serve_batch
from ..server.wire.request import STREAMS_TEXT
from ..server.wire.sessions import Session
from .bodies import BodyReadingHandler
from .channel import ResponseChannel
from .headers import (
    LAST_EVENT_ID_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    MCP_SESSION_ID_HEADER,
    accepts,
    json_body_type,
    session_query,
    wants_sse,
)

log = logging.getLogger("nanohubmcp.http")

MAX_HEADER_PAIRS = 256
"""Most ``(Content-Type, Accept)`` pairs :func:`post_headers` keeps (client input: bounded)."""
_POST_HEADERS: dict[tuple[str | None, str | None], tuple[bool, bool, bool]] = {}


def post_headers(content_type: str | None, accept: str | None) -> tuple[bool, bool, bool]:
    """For a POST's ``Content-Type`` and ``Accept``: ``(the body is JSON (json_body_type), the reply
    can be JSON or SSE (accepts), the client named SSE (wants_sse))``. A client sends the same two
    headers on every request: the answer is kept per pair (at most :data:`MAX_HEADER_PAIRS`)."""
    key = (content_type, accept)
    known = _POST_HEADERS.get(key)
    if known is None:
        known = (json_body_type(content_type),
                 accepts(accept, "application/json") or accepts(accept, "text/event-stream"), wants_sse(accept))
        if len(_POST_HEADERS) >= MAX_HEADER_PAIRS:
            _POST_HEADERS.clear()
        _POST_HEADERS[key] = known
    return known


class StreamableHTTPHandler(BodyReadingHandler):
    """The MCP endpoint. Also mounted at ``/`` (POST), where ``?session_id=`` means legacy SSE."""

    channel: ResponseChannel | None = None
    closing: Callable[[], None] | None = None
    """Called when the client closes the connection (a GET stream's writer, a modern request's cancel)."""
    root = False
    """Mounted at ``/``: a POST with ``?session_id=`` is a legacy SSE message."""

    def on_finish(self) -> None:
        # The channel points back at this handler: without this, every answered POST would be a
        # reference cycle (handler, request, connection, headers) left for the garbage collector.
        self.channel = None
        self.closing = None

    def on_connection_close(self) -> None:
        if self.channel is not None:
            self.channel.connection_lost()
        if self.closing is not None:
            self.closing()
        super().on_connection_close()  # a body still being read (a streamed twin's) ends the request quietly

    # -- POST ----------------------------------------------------------------------------
    async def post(self) -> None:
        headers = self.request.headers
        json_body, acceptable, sse = post_headers(headers.get("Content-Type"), headers.get("Accept"))
        body = self.received()
        if body is None:  # answered already (or the client is gone)
            return
        try:  # a refusal before the core: its status from the one map
            if not json_body:
                raise UnsupportedMediaType(
                    "Unsupported Media Type: send the JSON-RPC message with 'Content-Type: application/json'")
            if not acceptable:
                raise NotAcceptable(
                    "Not Acceptable: the reply is application/json or text/event-stream; accept one of them")
            legacy = session_query(self.request.query_arguments) if self.root else None
            if legacy:
                from .sse import post_legacy_message

                await post_legacy_message(self, legacy, body)
                return
            # ParseError / InvalidRequest: 400; SessionNotFound: 404; the era's checks: 400
            incoming = await self.connection.receive(
                body, session_id=headers.get(MCP_SESSION_ID_HEADER),
                header_version=headers.get(MCP_PROTOCOL_VERSION_HEADER), principal=self.principal,
                wants_stream=sse, trace_headers=headers)
        except ProtocolError as refused:
            self.fail(refused)
            return
        request = incoming.request
        if incoming.batch is not None:
            await self._post_batch(incoming)
        elif incoming.modern:
            await self._serve_modern(incoming)
        elif request is not None and request.message.kind != jsonrpc.REQUEST:
            await self.connection.serve(request)
            self.send_empty(202)
        elif request is not None:
            # A local name: the response may end before the call does (a hung-up stream, SEP-1699),
            # and on_finish then forgets self.channel.
            channel = self.channel = ResponseChannel(self, request, priming=request.version.priming_events,
                                                     event_stream=sse)
            request.slots[STREAMS_TEXT] = True  # a kept file's text is written a piece at a time
            reply = await self.connection.serve(request)
            if reply.message is None:
                channel.withdraw(request.cancel_reason)
                return
            if reply.session is not None:
                self.set_header(MCP_SESSION_ID_HEADER, reply.session.id)
            sending = channel.finish(reply.message)
            if sending is not None:
                await sending

    async def _serve_modern(self, incoming: Incoming) -> None:
        """Check the headers of, dispatch, and answer one 2026-07-28 POST (JSON, or SSE when
        related messages come first); a client's notification gets 202, a response 400."""
        message, request = incoming.message, incoming.request
        assert message is not None
        if message.kind == jsonrpc.RESPONSE:
            self.fail(InvalidRequest(
                "Invalid Request: 2026-07-28 clients send no responses; answer input requests in the "
                "retried request's inputResponses"))
            return
        if request is None:
            self.send_empty(202)  # no client notification means anything over HTTP in this era
            return
        from .stateless import check_headers  # (with the first request of the stateless era)

        try:
            check_headers(message, self.request.headers, self.connection.described.registry.tools)
        except ProtocolError as exc:
            self.fail(exc, message.id)
            return
        connection = self.connection
        channel = self.channel = ResponseChannel(self, request, priming=False)
        request.slots[STREAMS_TEXT] = True  # a kept file's text is written a piece at a time
        # Closing the response stream is the cancellation of this request (no notifications/cancelled).
        self.closing = lambda: connection.peer_gone(request, "the client closed the response stream")
        try:
            reply = await connection.serve(request)
        finally:
            self.closing = None
        response = reply.message
        if response is None:  # withdrawn: its client closed the response stream (its cancel), and reads nothing
            channel.withdraw(request.cancel_reason)
            return
        sending = channel.finish(response, MODERN_ROUTE)
        if sending is not None:
            await sending

    async def _post_batch(self, incoming: Incoming) -> None:
        batch, version = incoming.batch, incoming.version
        assert batch is not None
        assert version is not None
        responses = await serve_batch(self.connection, batch, version=version, session=incoming.session,
                                      principal=self.principal, trace_headers=self.request.headers,
                                      large=incoming.large)
        if responses:
            sending = self.send_json(200, responses)
            if sending is not None:  # a kept file's text, read by a streaming layer: sent a piece at a time
                await sending
        else:
            self.send_empty(202)

    # -- GET -----------------------------------------------------------------------------
    async def get(self) -> None:
        if self._finished:
            return
        try:
            await self._get()
        except ProtocolError as refused:
            self.fail(refused)

    async def _get(self) -> None:
        if not accepts(self.request.headers.get("Accept"), "text/event-stream"):
            raise NotAcceptable("Not Acceptable: GET opens an SSE stream; send 'Accept: text/event-stream'")
        from .stateless import is_modern_request

        if is_modern_request(None, self.request.headers):
            self._method_not_allowed("GET")
        if not self.request.headers.get(MCP_SESSION_ID_HEADER):
            # No stream without a session; 405 tells a client there is none to open here, where a
            # 400 makes some clients retry for ever (MCP 2025-11-25, Transports § Listening).
            self.set_header("Allow", "POST, DELETE")
            raise MethodNotAllowed(
                "Method Not Allowed: GET opens the stream of a session; without an Mcp-Session-Id (from "
                "initialize) there is no stream to open")
        session = await self._require_session()
        last_event_id = self.request.headers.get(LAST_EVENT_ID_HEADER)
        stream = session.stream_for_event(last_event_id) if last_event_id else None
        if stream is not None and (not await stream.kept()  # StateUnavailable: 503 with Retry-After
                                   or not stream.covers(last_event_id or "")):
            stream = None  # its log, or a message past the id, was dropped: a fresh GET stream, as for one never known
        claimed = False
        if stream is not None and stream.reading and not stream.hangup():
            # One reader per stream: a resume ends the connection reading it (it learns it is no
            # longer the reader); one that cannot be ended (still being opened) keeps the stream.
            raise StreamConflict("Conflict: this stream is being read by another connection; retry")
        if stream is None:
            stream = session.get_standalone()
            if stream.reading:
                raise StreamConflict("Conflict: this session already has an open GET stream")
            # Claimed before the first await, released once attached (or refused): GETs arriving
            # while this one waits on the shared store see it as read and get 409 (trial14 F7).
            stream.claimed = claimed = True
            last_event_id = None
        try:
            await stream.prepare()  # StateUnavailable: 503 with Retry-After
            from .sse_writer import SSEWriter  # (with the first SSE stream: a first answer is JSON)

            writer = SSEWriter(self, self.config.keepalive_seconds, unsendable=self.connection.unsendable_parts)
            # A fresh stream gets a priming event; a resumed one must not (a new id would sort after
            # the events still to be replayed, and a second drop would then skip them).
            fresh = last_event_id is None
            priming = (stream.next_id() if (fresh and stream.resumable and session.version.priming_events)
                       else None)
            writer.start(priming_id=priming)
            done = asyncio.get_running_loop().create_future()

            def sink(event_id: str | None, message: dict[str, Any]) -> None:
                writer.send(event_id, message)
                if stream.done and not done.done():
                    done.set_result(None)  # a resumed POST stream ends with its response

            def lost() -> None:
                stream.detach(sink)
                if not done.done():
                    done.set_result(None)

            writer.set_disconnect_callback(lost)
            self.closing = writer.connection_lost
            stream.set_close_callback(lost)
            stream.attach(sink, last_event_id)
            stream.set_hangup_callback(lost)  # a later resume of this stream ends this response
        finally:
            if claimed:
                stream.claimed = False
        if stream.done and not done.done():
            done.set_result(None)
        await done
        stream.drop_hangup_callback(lost)
        stream.detach(sink)
        session.touch()  # idle time counts from the stream's end
        ending = writer.finish()
        if ending is not None:  # a kept file's text still being written
            await ending

    async def _require_session(self) -> Session:
        session_id = self.request.headers.get(MCP_SESSION_ID_HEADER)
        if not session_id:
            raise InvalidRequest("Bad Request: send the Mcp-Session-Id header returned by initialize")
        session = await self.connection.lookup_session(session_id, self.principal)  # StateUnavailable: 503
        if session is None:
            raise self.connection.missing_session("Session not found: it expired or was deleted; initialize again")
        return session

    def _method_not_allowed(self, method: str) -> None:
        self.set_header("Allow", "POST")
        raise MethodNotAllowed(f"Method Not Allowed: protocol 2026-07-28 has no {method} on the MCP endpoint")

    # -- DELETE --------------------------------------------------------------------------
    async def delete(self) -> None:
        if self._finished:
            return
        from .stateless import is_modern_request

        try:
            if is_modern_request(None, self.request.headers):
                self._method_not_allowed("DELETE")
            session = await self._require_session()
        except ProtocolError as refused:
            self.fail(refused)
            return
        await self.connection.delete_session(session.id)
        self.send_empty(204)
