"""Streamable HTTP: ``POST``/``GET``/``DELETE`` on the MCP endpoint (``/mcp``, also ``POST /``).

POST carries one message (or, for 2024-11-05/2025-03-26 sessions, a batch). A request is
answered with JSON, or — when the client accepts ``text/event-stream`` and the call produces
progress, log messages or server→client requests — with an SSE stream carrying those first and
the response last. Notifications and client responses get 202 with no body.

GET opens the session's stream for messages unrelated to a request, or resumes a stream after
``Last-Event-ID``. DELETE ends the session.

Source: MCP 2025-11-25, Basic § Transports § Streamable HTTP (sending, listening, session
management, resumability, protocol version header); ``design/rulings.md`` § HTTP.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import tornado.web
from tornado.http1connection import HTTP1Connection

from ..errors import InternalError, InvalidRequest, NanohubMCPError, ProtocolError, http_status_for
from ..protocol import jsonrpc, versions
from ..server.request import RequestContext
from ..server.sessions import Session
from ..server.streams import OutboundStream
from . import batch
from .base import (
    LAST_EVENT_ID_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    MCP_SESSION_ID_HEADER,
    BaseHandler,
    BodyLimitMixin,
    json_body_type,
)
from .modern import ModernRequest, is_modern_request
from .sse_writer import SSEWriter

log = logging.getLogger("nanohubmcp.http")


def accepts(header: str | None, media: str) -> bool:
    """True when an ``Accept`` header admits ``media`` (absent header admits everything)."""
    if not header:
        return True
    for part in header.split(","):
        kind = part.split(";", 1)[0].strip().lower()
        if kind in (media, "*/*") or (kind.endswith("/*") and media.startswith(kind[:-1])):
            return True
    return False


def wants_sse(header: str | None) -> bool:
    """True when the client named ``text/event-stream`` itself (no Accept, or */*, gets JSON)."""
    return header is not None and "text/event-stream" in header.lower()


class ResponseChannel:
    """Answers one POSTed request: JSON by default, SSE once a related message must go first."""

    def __init__(self, handler: BaseHandler, stream: OutboundStream | None, *, priming: bool,
                 session: Session | None = None) -> None:
        self.handler = handler
        self.session = session
        self.stream = stream
        self.priming = priming
        self.writer: SSEWriter | None = None
        # Reserve the priming event's id first, so every message's id comes after it.
        self.priming_id = stream.next_id() if (priming and stream is not None) else None
        if stream is not None:
            stream.attach(self._sink)
            if priming:
                stream.on_hangup = self._hangup

    def _start(self) -> SSEWriter:
        if self.writer is None:
            self.writer = SSEWriter(self.handler, self.handler.config.keepalive_seconds)
            self.writer.on_disconnect = self._lost
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

    def finish(self, response: dict[str, Any], status: int = 200) -> None:
        """Send the response: as the stream's last event, or as a JSON body."""
        if self.writer is not None and self.stream is not None:
            self.stream.send(response, final=True)
            self.stream.detach(self._sink)  # the response is over; keep no handler alive
            self.writer.finish()
            return
        self._forget_stream()
        if self._open():
            self.handler.send_json(status, response)

    def withdraw(self) -> None:
        """End the exchange without a response: the client cancelled the request, and a
        cancelled request gets none (MCP 2025-11-25, Utilities § Cancellation). An SSE
        response ends after what it carried; otherwise the POST gets ``202 Accepted``."""
        writer = self.writer
        self._forget_stream()
        if writer is not None:
            writer.finish()
        elif self._open():
            self.handler.send_empty(202)

    def _forget_stream(self) -> None:
        if self.stream is not None:
            self.stream.done = True
            self.stream.detach(self._sink)
            if self.session is not None:
                # Nothing more comes on this stream: nothing on it is left to resume.
                self.session.streams.pop(self.stream.stream_id, None)

    def _open(self) -> bool:
        connection = self.handler.request.connection
        closed = isinstance(connection, HTTP1Connection) and connection.stream.closed()
        return not self.handler._finished and not closed


@tornado.web.stream_request_body
class StreamableHTTPHandler(BodyLimitMixin, BaseHandler):
    """The MCP endpoint. Also mounted at ``/`` (POST), where ``?session_id=`` means legacy SSE."""

    channel: ResponseChannel | None = None
    _on_close: Callable[[], None] | None = None  # set while a POST's request runs: the peer going away cancels it

    def initialize(self, server: Any, config: Any, root: bool = False) -> None:
        super().initialize(server, config)
        self.root = root

    def prepare(self) -> None:
        super().prepare()
        if self._finished:
            return
        if self.request.method == "POST":
            self.prepare_body()

    def on_connection_close(self) -> None:
        if self.channel is not None:
            self.channel.connection_lost()
        if self._on_close is not None:
            self._on_close()

    # -- POST ----------------------------------------------------------------------------
    async def post(self) -> None:
        if self._finished:
            return
        if not json_body_type(self.request.headers.get("Content-Type")):
            self.send_error_json(415, jsonrpc.error(None, {
                "code": InvalidRequest.code,
                "message": "Unsupported Media Type: send the JSON-RPC message with 'Content-Type: application/json'"}))
            return
        accept = self.request.headers.get("Accept")
        if not (accepts(accept, "application/json") or accepts(accept, "text/event-stream")):
            self.send_error_json(406, jsonrpc.error(None, {
                "code": InvalidRequest.code,
                "message": "Not Acceptable: the reply is application/json or text/event-stream; accept one of them"}))
            return
        if self.root and self.get_query_argument("session_id", None):
            from .sse import post_legacy_message

            await post_legacy_message(self, self.get_query_argument("session_id"))
            return
        try:
            parsed = jsonrpc.parse_body(self.body())
        except ProtocolError as exc:
            self.send_error_json(400, jsonrpc.error(None, exc.to_error()))
            return
        if isinstance(parsed, list):
            await self._post_batch(parsed)
            return
        try:
            message = jsonrpc.classify(parsed)
        except ProtocolError as exc:
            self.send_error_json(400, jsonrpc.error(getattr(exc, "request_id", None), exc.to_error()))
            return
        if is_modern_request(message, self.request.headers):
            await ModernRequest(self, message).serve()
            return
        await self._post_one(message)

    def _header_version(self) -> str | None:
        """The ``MCP-Protocol-Version`` header; a 400 reply (and None) when it is unsupported."""
        value = self.request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if value is None:
            return None
        value = value.strip()
        if value not in versions.SUPPORTED_VERSIONS:
            self.send_error_json(400, jsonrpc.error(None, {
                "code": InvalidRequest.code,
                "message": f"Unsupported MCP-Protocol-Version: {value!r}",
                "data": {"supported": list(versions.SUPPORTED_VERSIONS), "requested": value},
            }))
            raise _Replied
        return value

    def _session(self, message: jsonrpc.Message) -> tuple[Session | None, bool]:
        """The request's session (or None), and whether ``initialize`` must create one."""
        if message.kind == jsonrpc.REQUEST and message.method == "initialize":
            return None, True  # never adopt a client-chosen id (study § f 2)
        session_id = self.request.headers.get(MCP_SESSION_ID_HEADER)
        if not session_id:
            return None, False
        session = self.core.sessions.get(session_id)
        if session is None:
            self.send_error_json(404, jsonrpc.error(message.id, {
                "code": InvalidRequest.code,
                "message": "Session not found: it expired or was deleted; initialize again without Mcp-Session-Id",
            }))
            raise _Replied
        session.touch()
        return session, False

    async def _post_one(self, message: jsonrpc.Message) -> None:
        try:
            header_version = self._header_version()
            session, create = self._session(message)
        except _Replied:
            return
        version = session.version if session is not None else (header_version or versions.SESSIONLESS_DEFAULT)
        loop = asyncio.get_running_loop()
        if message.kind != jsonrpc.REQUEST:
            await self.core.dispatcher.handle(RequestContext(message, version=version, loop=loop, session=session))
            self.send_empty(202)
            return
        sse_ok = wants_sse(self.request.headers.get("Accept"))
        stream = None
        if sse_ok:
            stream = session.new_stream() if session is not None else OutboundStream("x", resumable=False)
        request = RequestContext(message, version=version, loop=loop, session=session, stream=stream)
        if create:
            request.extra["create_session"] = True
        priming = session is not None and session.resumable and version >= versions.V2025_11_25
        self.channel = ResponseChannel(self, stream, priming=priming, session=session)
        if session is not None:
            session.in_flight[message.id] = request  # type: ignore[index]
        try:
            response = await self.core.dispatcher.handle(request)
        except asyncio.CancelledError:
            # The server is shutting down under this request (its worker pool was cancelled).
            response = jsonrpc.error(message.id, {
                "code": InternalError.code, "message": "The server is shutting down; retry on a new connection"})
        finally:
            if session is not None:
                session.in_flight.pop(message.id, None)  # type: ignore[arg-type]
                session.touch()  # idle time counts from the end of the call
        assert response is not None
        if request.withdrawn:
            self.channel.withdraw()
            return
        new_session = request.extra.get("session")
        if new_session is not None and "result" in response:
            self.set_header(MCP_SESSION_ID_HEADER, new_session.id)
        status = http_status_for(response["error"]) if "error" in response else 200
        self.channel.finish(response, status)

    async def _post_batch(self, items: list[Any]) -> None:
        try:
            header_version = self._header_version()
        except _Replied:
            return
        session_id = self.request.headers.get(MCP_SESSION_ID_HEADER)
        session = self.core.sessions.get(session_id) if session_id else None
        if session_id and session is None:
            self.send_error_json(404, jsonrpc.error(None, {
                "code": InvalidRequest.code, "message": "Session not found: initialize again"}))
            return
        version = session.version if session is not None else (header_version or versions.SESSIONLESS_DEFAULT)
        refused = batch.refusal(version, items)
        if refused is not None:
            self.send_error_json(400, jsonrpc.error(None, refused))
            return
        responses = await batch.serve_batch(self.core, items, version=version, session=session)
        if responses:
            self.send_json(200, responses)
        else:
            self.send_empty(202)

    # -- GET -----------------------------------------------------------------------------
    async def get(self) -> None:
        if self._finished:
            return
        if not accepts(self.request.headers.get("Accept"), "text/event-stream"):
            self.send_error_json(406, jsonrpc.error(None, {
                "code": InvalidRequest.code,
                "message": "Not Acceptable: GET opens an SSE stream; send 'Accept: text/event-stream'"}))
            return
        if is_modern_request(None, self.request.headers):
            self._method_not_allowed("GET")
            return
        session = self._require_session()
        if session is None:
            return
        last_event_id = self.request.headers.get(LAST_EVENT_ID_HEADER)
        stream = session.stream_for_event(last_event_id) if last_event_id else None
        if stream is None:
            stream = session.get_standalone()
            if stream.sink is not None:
                self.send_error_json(409, jsonrpc.error(None, {
                    "code": InvalidRequest.code,
                    "message": "Conflict: this session already has an open GET stream"}))
                return
            last_event_id = None
        writer = SSEWriter(self, self.config.keepalive_seconds)
        # A fresh stream gets a priming event; a resumed one must not (a new id would sort after
        # the events still to be replayed, and a second drop would then skip them).
        fresh = last_event_id is None
        priming = (stream.next_id() if (fresh and stream.resumable and session.version >= versions.V2025_11_25)
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

        writer.on_disconnect = lost
        self._on_close = writer.connection_lost
        stream.on_close = lost
        stream.attach(sink, last_event_id)
        if stream.done and not done.done():
            done.set_result(None)
        await done
        stream.detach(sink)
        session.touch()  # idle time counts from the stream's end
        writer.finish()

    def _require_session(self) -> Session | None:
        session_id = self.request.headers.get(MCP_SESSION_ID_HEADER)
        if not session_id:
            self.send_error_json(400, jsonrpc.error(None, {
                "code": InvalidRequest.code,
                "message": "Bad Request: send the Mcp-Session-Id header returned by initialize"}))
            return None
        session = self.core.sessions.get(session_id)
        if session is None:
            self.send_error_json(404, jsonrpc.error(None, {
                "code": InvalidRequest.code,
                "message": "Session not found: it expired or was deleted; initialize again"}))
            return None
        session.touch()
        return session

    def _method_not_allowed(self, method: str) -> None:
        self.set_header("Allow", "POST")
        self.send_error_json(405, jsonrpc.error(None, {
            "code": InvalidRequest.code,
            "message": f"Method Not Allowed: protocol 2026-07-28 has no {method} on the MCP endpoint"}))

    # -- DELETE --------------------------------------------------------------------------
    def delete(self) -> None:
        if self._finished:
            return
        if is_modern_request(None, self.request.headers):
            self._method_not_allowed("DELETE")
            return
        session = self._require_session()
        if session is None:
            return
        self.core.sessions.remove(session.id)
        self.send_empty(204)


class _Replied(NanohubMCPError):
    """Internal: an error reply was already sent."""
