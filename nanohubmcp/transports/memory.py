"""The in-memory transport: one client in the same process, no sockets, no threads of its own.

A :class:`MemoryPeer` is the server's end of one in-process client (:mod:`nanohubmcp.testing`'s
clients sit on the other end). It is stdio without the pipe: each message the client sends is handed
over as JSON bytes to the path a stdio line takes (:class:`~.one_peer.OnePeer`, then the
:class:`~nanohubmcp.server.connection.Connection` every transport speaks to: parsed there, its era and
version decided there, then served through the dispatcher and the call pipeline), so the same bytes get
the same answer as over stdio — refusals, error objects, batches, the one session ``initialize`` opens —
and middleware, scopes, schemas, progress, elicitation, sampling, logging and tasks behave as on the
wire. Both eras are served on one connection, and requests concurrently (a client can answer an
elicitation while the call that asked waits). Only the framing differs: a message is given whole, so a
newline inside it is no line's end.

Messages the server sends outside a response — progress, log messages, server→client requests,
change notifications — go to the ``sink`` given at construction, in order, on the event loop.

Source: MCP 2025-11-25, Basic § Transports (custom transports); MCP 2026-07-28, Basic § Transports.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..server.connection import Connection
from ..server.intake import MEMORY_TRANSPORT
from .one_peer import Answer, OnePeer
from .served import ServedServer

if TYPE_CHECKING:
    from ..server.jobs.record import Job
    from ..server.wire.principal import Principal
    from ..server.wire.sessions import Session

__all__ = ["MemoryPeer"]

Sink = Callable[[dict[str, Any]], None]
"""Receives one message the server sent the client (a dict, the JSON-RPC message)."""


class MemoryPeer:
    """The server's end of one in-process client.

    Args:
        server: the ``MCPServer`` to serve.
        sink: called with each message the server sends outside a response, on the event loop.
        principal: the caller every request comes from, as if a token verifier had authenticated
            it (per-tool ``scopes=``, ``ctx.principal``, sessions owned by their opener); None:
            no authenticated caller, as on a server without ``auth=``.
        version: the protocol version of a handshake-era request sent without a session (what
            an HTTP client's ``MCP-Protocol-Version`` header says); None: 2025-03-26, as over stdio.
    """

    def __init__(self, server: ServedServer, sink: Sink, *, principal: Principal | None = None,
                 version: str | None = None) -> None:
        self.core = server.core
        self.connection = Connection(server.core, MEMORY_TRANSPORT, server, one_peer=True)
        self._sink = sink
        self.peer = OnePeer(self.connection, self._write, principal=principal, version=version)
        """Each message answered as stdio answers a line (:mod:`.one_peer`)."""
        self.out = self.peer.out
        self.attached = self.core.notifier is None
        """No runner served the server when the peer was made: the first request attaches its
        core to the client's loop, and :meth:`close` detaches it again (unless a runner took it since)."""
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop of the first request

    def _write(self, event_id: str | None, message: dict[str, Any]) -> None:
        self._sink(message)

    @property
    def session(self) -> Session | None:
        """The session ``initialize`` opened (it may have ended since: :attr:`live_session`)."""
        return self.peer.session

    @property
    def live_session(self) -> Session | None:
        """The session ``initialize`` opened, while it lives."""
        return self.peer.live_session()

    async def deliver(self, body: bytes) -> Answer | None:
        """Serve one JSON-RPC message or batch (its JSON bytes) as stdio serves the same bytes on a line
        (:meth:`OnePeer.answer <.one_peer.OnePeer.answer>`): the response message (a list for a batch), None
        when none is owed (a blank message, a notification, a response to the server's request, a request
        withdrawn by cancellation, a batch of notifications). Never raises: the client's mistakes are error
        responses, as the wire gives them (-32700 for text that is not JSON, -32600 for JSON that is no
        message, and for a message over 4 MiB; a batch where its version has them, 2024-11-05 and
        2025-03-26, else -32600), and what serving one raised is logged and answered -32603."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return await self.peer.answer(body)

    def started(self, job: Job) -> bool:
        """Whether ``job`` was started by a request of this peer's client."""
        request = job.request  # (never a deferred stream: this peer gives its own to every request)
        return request is not None and request.transport == MEMORY_TRANSPORT and request.stream is self.out

    def close(self) -> asyncio.Task[None] | None:
        """The client went away: what it still runs is cancelled, its session ends, and a core this
        peer attached to its loop is detached (the next client may run on another loop). Nothing else of
        the server changes: a runner serving it (started before the peer, or since) goes on serving its
        other clients. Returns the shared store's disconnecting task when the detach started one (its queued
        log entries written first), for the caller to wait for before its loop ends
        (:func:`~nanohubmcp.server.wire.store_close.wait_closed`), else None."""
        self.peer.close("the client closed")
        if self.attached and self._loop is not None and self.core.loop is self._loop:
            return self.core.detach()
        return None
