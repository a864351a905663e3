"""Legacy HTTP+SSE transport (2024-11-05): ``GET /sse`` plus its POST endpoint.

``GET /sse`` opens a session and a stream whose first event, ``endpoint``, names where to POST:
``<public base path>/messages/?session_id=<id>`` — an absolute path under the public prefix,
so it resolves correctly behind the weber proxy (fixes study § f 12). POSTs there are answered
``202 Accepted``; the response, and everything related to it, travels on that session's
stream only. ``POST /?session_id=<id>`` is accepted too, for clients of the earlier package.
The session ends when its stream closes.

Source: MCP 2024-11-05, Basic § Transports § HTTP with SSE; ``design/rulings.md`` § Protocol.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import tornado.web

from ..errors import InvalidRequest, ProtocolError
from ..protocol import jsonrpc, versions
from ..server.request import RequestContext
from . import batch
from .base import BaseHandler, BodyLimitMixin
from .sse_writer import SSEWriter

log = logging.getLogger("nanohubmcp.http")


class LegacySSEHandler(BaseHandler):
    """``GET /sse``: one session per stream."""

    writer: SSEWriter | None = None

    async def get(self) -> None:
        if self._finished:
            return
        session = self.core.sessions.create(versions.V2024_11_05, transport="sse")
        stream = session.get_standalone()
        writer = self.writer = SSEWriter(self, self.config.keepalive_seconds)
        writer.start()
        endpoint = f"{self.config.public_path()}/messages/?session_id={session.id}"
        writer.send_raw(f"event: endpoint\ndata: {endpoint}\n\n".encode())
        closed = asyncio.get_running_loop().create_future()

        def sink(event_id: str | None, message: dict[str, Any]) -> None:
            writer.send(None, message)

        def lost() -> None:
            if not closed.done():
                closed.set_result(None)

        writer.on_disconnect = lost
        stream.on_close = lost
        stream.attach(sink)
        await closed
        self.core.sessions.remove(session.id)
        writer.finish()

    def on_connection_close(self) -> None:
        if self.writer is not None:
            self.writer.connection_lost()


@tornado.web.stream_request_body
class LegacyMessagesHandler(BodyLimitMixin, BaseHandler):
    """``POST /messages/?session_id=<id>``."""

    def prepare(self) -> None:
        super().prepare()
        if not self._finished:
            self.prepare_body()

    async def post(self) -> None:
        if self._finished:
            return
        await post_legacy_message(self, self.get_query_argument("session_id", None))


async def post_legacy_message(handler: Any, session_id: str | None) -> None:
    """Accept one message for a legacy SSE session: 202 now, the reply on its stream."""
    session = handler.core.sessions.get(session_id)
    if session is None or session.transport != "sse":
        handler.send_error_json(404, jsonrpc.error(None, {
            "code": InvalidRequest.code,
            "message": "Unknown session_id: open GET /sse first and POST to the endpoint it announces"}))
        return
    try:
        parsed = jsonrpc.parse_body(handler.body())
        if isinstance(parsed, list):
            refused = batch.refusal(session.version, parsed)
            if refused is not None:
                raise InvalidRequest(refused["message"])
        else:
            message = jsonrpc.classify(parsed)
    except ProtocolError as exc:
        handler.send_error_json(400, jsonrpc.error(getattr(exc, "request_id", None), exc.to_error()))
        return
    session.touch()
    handler.send_empty(202)
    stream = session.get_standalone()
    if isinstance(parsed, list):
        replies = await batch.serve_batch(handler.core, parsed, version=session.version, session=session,
                                          stream=stream)
        if replies:
            stream.send(replies)  # a batch reply is one JSON array
        return
    request = RequestContext(message, version=session.version, loop=asyncio.get_running_loop(),
                             session=session, stream=stream)
    if message.kind == jsonrpc.REQUEST:
        session.in_flight[message.id] = request
    try:
        reply = await handler.core.dispatcher.handle(request)
    finally:
        if message.kind == jsonrpc.REQUEST:
            session.in_flight.pop(message.id, None)
    if reply is not None and not request.withdrawn:  # a request the client cancelled gets no response
        stream.send(reply)
