"""One client's messages answered: the path stdio and the in-memory transport share.

A transport with one client and a session of its own (stdio: one line a message; the in-memory transport of
:mod:`nanohubmcp.testing`: one message's bytes at a time) hands each message to :meth:`OnePeer.answer` and
writes what it answers; messages the server sends outside a response (progress, log messages, its requests,
change notifications) go to the transport's sink as they come. Everything between is decided here once, so an
in-memory test sees what a stdio client reads for the same bytes: a blank message is passed over; one longer than
the limit is refused (-32600, its id when its first bytes name it); the rest is read by the connection seam
(:meth:`Connection.read <nanohubmcp.server.connection.Connection.read>`, on a worker thread from
:data:`~nanohubmcp.server.wire.request.LARGE_MESSAGE_BYTES`: parse errors, batches where the version has them,
the era and the version in force), the peer's one session kept (``initialize`` opens it, a second one starts
over), a ``notifications/cancelled`` naming a request in no session withdraws it, and a request read after the
caller's token expired is refused. What a message's serving raises is logged and answered -32603, never lost.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ProtocolError, error_response
from ..protocol import jsonrpc
from ..server.connection import Connection, serve_batch
from ..server.wire.request import LARGE_MESSAGE_BYTES, STREAMS_TEXT
from ..server.wire.streams import OutboundStream
from .lines import HEAD_BYTES, MAX_LINE_BYTES, TooLong, too_long_response

if TYPE_CHECKING:
    from ..server.wire.principal import Principal
    from ..server.wire.sessions import Session
    from .stdio_auth import TokenExpiry

__all__ = ["Answer", "OnePeer", "Sink"]

Sink = Callable[[str | None, Any], None]
"""Writes one message the server sends outside a response: ``(event_id, message)``, as a stream's sink."""
Answer = dict[str, Any] | list[dict[str, Any]]
"""What one message is answered with: a response, or a batch's list of them."""


class OnePeer:
    """The server's side of a connection with one client (see the module docstring).

    Args:
        connection: the transport's connection seam (made with ``one_peer=True``).
        sink: where the messages the server sends outside a response go, in order.
        principal: the caller every request carries (None: no authorization).
        version: the protocol version of a handshake-era request with no session, as an ``MCP-Protocol-Version``
            header would say it (None: 2025-03-26, what stdio has).
        expiry: when the caller's token expires: each request read after it is refused (None: never).
        max_bytes: the longest message answered; a longer one is refused.
        streams_text: a kept file's text is written a piece at a time (stdio's lines can; a sink given dicts
            cannot).
    """

    def __init__(self, connection: Connection, sink: Sink, *, principal: Principal | None = None,
                 version: str | None = None, expiry: TokenExpiry | None = None, max_bytes: int = MAX_LINE_BYTES,
                 streams_text: bool = False) -> None:
        self.connection = connection
        self.principal = principal
        self.version = version
        self.expiry = expiry
        self.max_bytes = max_bytes
        self.streams_text = streams_text
        self.session: Session | None = None
        """The session ``initialize`` opened (see :meth:`live_session`)."""
        self._sink = sink
        self.out = OutboundStream(connection.transport, resumable=False)
        """The stream every request's related messages go on (to ``sink``)."""
        self.out.attach(sink)

    def live_session(self) -> Session | None:
        """The session ``initialize`` opened, while it lives."""
        if self.session is not None and self.session.closed:
            self.session = None
        return self.session

    async def reply(self, body: bytes, write: Callable[[Answer], None]) -> None:
        """:meth:`answer` ``body`` and hand the answer, if one is owed, to ``write`` (stdio: its line writer).
        Entered straight from the transport's read, so a steady ``tools/call`` over stdio passes through no more
        modules than when stdio read its lines itself (the hop bound: ``bench/hops.py``)."""
        answer = await self.answer(body)
        if answer is not None:
            write(answer)

    async def answer(self, body: bytes) -> Answer | None:
        """Serve one message (or batch) the client sent: the answer to write, None when none is owed (a blank
        message, a notification, a response to the server's request, a request withdrawn by cancellation, a
        batch of notifications). Never raises for the client's mistakes, nor for the server's own.

        One function from the bytes to the connection's ``serve``, not two: each function of another module
        entered between the intake and the connection is a module hop of every call (``bench/hops.py``)."""
        if isinstance(body, TooLong) or len(body) > self.max_bytes:
            return too_long_response(TooLong(body[:HEAD_BYTES]), self.max_bytes)
        if not body.strip():
            return None
        incoming = None
        try:
            try:  # parsed, its era, version and request context: the connection seam's, in one call
                if len(body) < LARGE_MESSAGE_BYTES:
                    incoming = self.connection.read(body, session=self.live_session(), stream=self.out,
                                                    principal=self.principal, version=self.version)
                else:  # parsed on a worker thread, and a call's arguments checked there too
                    incoming = await self.connection.read_large(body, session=self.live_session(), stream=self.out,
                                                                principal=self.principal, version=self.version)
            except ProtocolError as exc:  # not JSON-RPC; a batch the version lacks; a 2026-07-28 envelope
                return error_response(exc, exc.request_id)
            expiry = self.expiry  # the caller's token expired: one clock reading, one comparison (None: never)
            expired = expiry if expiry is not None and time.time() >= expiry.at else None
            connection, request = self.connection, incoming.request
            if incoming.batch is not None:
                assert incoming.version is not None
                batch, replies = incoming.batch, list[dict[str, Any]]()
                if expired is not None:  # its requests refused; its notifications and answers still taken
                    replies, batch = expired.refuse_requests(batch)
                if batch:
                    replies += await serve_batch(connection, batch, version=incoming.version,
                                                 session=incoming.session, stream=self.out, principal=self.principal,
                                                 large=incoming.large)
                return replies or None
            if request is None:
                assert incoming.message is not None
                connection.withdraw(incoming.message)  # a cancellation; a 2026-07-28 client sends nothing else
                return None
            if expired is not None and request.message.kind == jsonrpc.REQUEST:
                return expired.refusal(request.message.id)
            if request.open_session is not None and self.live_session() is not None:
                # A second handshake on the same connection starts over (the old session ends).
                connection.end_session(self.session.id)  # type: ignore[union-attr]
                self.session = None
            if self.streams_text:
                request.slots[STREAMS_TEXT] = True  # a kept file's text is written to the line a piece at a time
            reply = await connection.serve(request)
            if reply.session is not None:
                self.session = reply.session
                reply.session.get_standalone().attach(self._sink)  # change notifications reach the client too
            return reply.message
        except Exception:  # one message never ends the transport: logged, and a request answered
            transport = self.connection.transport  # (logged as stdio's always was: nanohubmcp.stdio; nanohubmcp.memory)
            logging.getLogger(f"nanohubmcp.{transport}").exception("internal error while serving a message on %s",
                                                                   transport)
            message = incoming.message if incoming is not None else None
            if message is None or message.kind == jsonrpc.REQUEST:
                return error_response(RuntimeError(), message.id if message is not None else None)
            return None

    def close(self, reason: str) -> None:
        """The client went away: what it still runs is cancelled, its session ends."""
        self.connection.close(reason)
        if self.live_session() is not None:
            self.connection.end_session(self.session.id)  # type: ignore[union-attr]
            self.session = None
