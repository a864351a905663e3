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

It is also the one place the testing clients (:mod:`nanohubmcp.testing`) start and stop the server's core through:
the first request attaches the core to the client's loop when no runner serves it; :meth:`MemoryPeer.close`
detaches it again; :meth:`MemoryPeer.hand_over_jobs` hands the jobs a client started to a server serving on another
loop before the client's loop may end; :meth:`MemoryPeer.loop_ends` settles the end of a loop that stops next (the
blocking client's thread): the core it served is closed as a stop closes it, or the jobs started on it end.

Source: MCP 2025-11-25, Basic § Transports (custom transports); MCP 2026-07-28, Basic § Transports.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..server.connection import Connection
from ..server.intake import MEMORY_TRANSPORT
from ..server.wire.store_close import wait_closed
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

    async def hand_over_jobs(self, seconds: float) -> None:
        """The client's loop, the running one, may end at any time from now on (``asyncio.run`` returns). When the
        server serves on a loop of its own (``server.start()``), the jobs this peer's client started that can go on
        without this loop are handed to it (:meth:`JobService.loop_ending
        <nanohubmcp.server.executors.job_service.JobService.loop_ending>`: one whose function runs on a thread goes
        on and stores its end, a Dask job is followed on the server's loop), the tasks that followed them here
        waited for up to ``seconds``. A coroutine job runs on this loop: it goes on while the loop does."""
        core = self.core
        loop = asyncio.get_running_loop()
        if core.loop is None or core.loop is loop or core.loop.is_closed():
            return  # the server serves on this loop, or not at all: its jobs go on here
        cancelled = core.job_service.loop_ending(loop, self.started, ends=False)
        if cancelled:
            await asyncio.wait(cancelled, timeout=seconds)

    def loop_ends(self, loop: asyncio.AbstractEventLoop, seconds: float) -> None:
        """``loop``, the client's, running on a thread of its own, stops once this returns (called from another
        thread, after :meth:`close`). When the core served on it (no runner took it since), it is detached (a
        shared store's close waited for) and closed as ``server.stop()`` closes a served core (its calls and jobs
        cancelled; it serves again when used again). Else the server serves elsewhere (``server.start()``,
        ``make_app()``): its other clients' sessions, calls and jobs go on, and the jobs started on ``loop`` end
        (handed to the server when they can, else failed: "the testing client that started this job closed while
        it ran"). Each step on ``loop`` waits up to ``seconds``."""
        core = self.core
        if core.loop is loop:
            asyncio.run_coroutine_threadsafe(_detached(self), loop).result(seconds)
            core.close()
        else:
            asyncio.run_coroutine_threadsafe(_jobs_end(self, seconds), loop).result(seconds)


async def _detached(peer: MemoryPeer) -> None:
    await wait_closed(peer.core.detach())


async def _jobs_end(peer: MemoryPeer, seconds: float) -> None:
    cancelled = peer.core.job_service.loop_ending(asyncio.get_running_loop())
    if cancelled:
        await asyncio.wait(cancelled, timeout=seconds)
