"""The transport contract: what every transport owes the core, and what the core gives back.

A transport (Streamable HTTP, legacy HTTP+SSE, JSON-RPC ``POST /``, REST, stdio) frames bytes;
the core serves MCP. They meet here and nowhere else. A transport holds one
:class:`Connection` and follows these rules:

1. **Sessions.** ``find_session(id)`` looks up (and touches) the session a client names;
   ``open_session(version)`` mints one when the transport itself decides a session starts
   (legacy SSE at ``GET /sse``, stdio at start-up); ``end_session(id)`` ends one (a closed
   legacy stream; ``await delete_session(id)`` for a client's DELETE). For ``initialize`` the
   transport passes ``opens_session=True`` and the core mints the session only if the
   handshake succeeds; the new session comes back in :attr:`Reply.session` so the transport
   can announce its id. Session ids are minted by the
   server, never taken from the client (MCP 2025-11-25, Transports § Session Management).
   With authorization, a session belongs to the principal that opened it: the transport
   passes its principal to both, and another principal's lookup finds nothing (404).
2. **Messages in.** ``parse(body)`` turns bytes into one :class:`~nanohubmcp.protocol.jsonrpc.Message`
   or a batch list, raising :class:`~nanohubmcp.errors.ProtocolError` for the transport to
   answer with :func:`~nanohubmcp.errors.error_response`. The protocol matters every transport
   shares are decided here, once: the era of a request (:func:`is_modern`), the version in
   force (:func:`handshake_version`: the session's, a header's (:func:`spoken_version`), else
   2025-03-26: these three are :mod:`.eras`'; :func:`modern_version`: a 2026-07-28 request's
   own ``_meta``, checked against its header; :mod:`.stateless.envelope`), whether a batch may
   be served (:func:`batch_refusal`; batches are :mod:`.batches`'). ``request(message, ...)``
   builds the :class:`RequestContext`:
   that version, the session, the client's capabilities, and the *stream* for related messages.
   An HTTP transport hands the whole body and the values of its headers to ``receive``, which
   does all of this in one call, in the spec's order, and answers an :class:`Incoming` (the
   session it names is touched when the request ends, not when it is looked up: a session
   serving a request is busy, never expired); a transport with one peer hands each line to
   ``read``. A body (or line) of at least ``LARGE_MESSAGE_BYTES`` is parsed on a worker thread
   (``receive`` does it; otherwise ``parse_large``, ``read_large``) and its request (a batch's
   members: ``serve_batch(connection, ..., large=True)``) marked ``large``: a call's arguments are then
   checked and converted there too. These reading verbs are :class:`~.intake.Intake`'s (:mod:`.intake`),
   which a :class:`Connection` extends with serving: they are the connection's own.
3. **Messages out.** Everything the core sends while serving a request — progress, log
   messages, server→client requests (elicitation, sampling, roots) — goes to the request's
   ``stream`` (an :class:`~nanohubmcp.server.wire.streams.OutboundStream`) in order, before the
   response; messages unrelated to a request go to the session's standalone stream
   (``Session.get_standalone()``). The transport attaches a *sink* to a stream to write what
   arrives. A request with no stream gets a plain reply and nothing else. A response JSON cannot hold
   (a middleware's value) is written as ``unsendable_parts(message, exc)`` answers it: -32603, logged
   with this server's likely cause.
4. **Serving.** ``await serve(request)`` runs the message through the dispatcher (a request
   passes the call pipeline's layers — version gating, limits, scopes, the application's
   middleware — on its way to its handler) and answers a :class:`Reply`: the response message
   (None for notifications, client responses, and requests the client withdrew with
   ``notifications/cancelled`` — those get no response, MCP 2025-11-25, Utilities §
   Cancellation). While it runs the request is *in flight*: it is
   registered with its session (so a ``notifications/cancelled`` from the same session reaches
   it), the session's idle clock restarts when it ends, and a server shutting down under it
   is answered :class:`~nanohubmcp.errors.ServerStopping` instead of a dropped connection (and a request
   arriving while it stops is refused so, but a listing or a ping on a session that exists, or a listing of
   the stateless era: :meth:`.shutdown.Shutdown.refuses`). With a shared state store, a request the client
   cancelled (on any process) before it started here is withdrawn as it starts, unrun
   (:meth:`.wire.replication.Replication.cancelled_before`). On a connection with one client
   (``one_peer``: stdio, an in-memory client) a ``notifications/cancelled`` naming one of its
   requests in no session (any 2026-07-28 request; a handshake-era one sent without
   ``initialize``) withdraws it too (:mod:`.sessionless`).
   ``await serve_batch(connection, items, version=..., session=...)`` (:func:`.batches.serve_batch`) serves a
   JSON-RPC batch where the version has them (:func:`batch_refusal` says whether it does), member by member
   through ``serve``: the replies in one list.
5. **Peer gone.** When the client goes away mid-request (a closed 2026-07-28 response stream, a
   closed legacy SSE stream: each request of its session, stdin at EOF), the transport calls
   ``peer_gone(request)`` (one request) or ``close()`` (everything this connection is serving): the
   function sees ``ctx.is_cancelled()``.
6. **Errors.** A transport never builds an error object by hand: protocol errors are
   exceptions from :mod:`nanohubmcp.errors`, turned into the wire by
   :func:`~nanohubmcp.errors.error_response` (JSON-RPC) or the transport's own error body
   built from the same exception (REST), with the HTTP status of the one map
   (:func:`~nanohubmcp.errors.http_status_for`, :func:`~nanohubmcp.errors.http_status_of`).

Nothing here imports a transport's framework: a Tornado handler and a stdin reader use it alike.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Final, Protocol

from ..errors import ServerStopping, error_response
from ..protocol import jsonrpc, sendable
from ..protocol.sendable import Parts
from ..protocol.tuple_records import TupleMadeRecord, field
from ..state.errors import StateUnavailable
from .batches import MAX_BATCH_MESSAGES, MAX_BATCH_RESPONSE_BYTES, batch_refusal, serve_batch
from .described import Described
from .eras import handshake_version, is_modern, spoken_version
from .intake import Incoming, Intake, Received
from .sessionless import Sessionless, id_in_use
from .stateless.envelope import check_modern_version, modern_envelope, modern_version
from .wire.request import CLIENT_CANCELLED, PEER_GONE, RequestContext

if TYPE_CHECKING:
    from .dispatcher import Dispatcher
    from .wire.principal import Principal
    from .wire.sessions import Session

__all__ = [
    "MAX_BATCH_MESSAGES",
    "MAX_BATCH_RESPONSE_BYTES",
    "Connection",
    "ConnectionHost",
    "Incoming",
    "Reply",
    "batch_refusal",
    "check_modern_version",
    "handshake_version",
    "is_modern",
    "modern_envelope",
    "modern_version",
    "serve_batch",
    "spoken_version",
]

log = logging.getLogger("nanohubmcp.state")


def _uncancel() -> None:
    """The current task caught a cancellation it answers itself: it is no longer being cancelled
    (Python 3.11+ counts cancellations; a later ``asyncio.timeout`` in the task would misread one)."""
    task = asyncio.current_task()
    uncancel = getattr(task, "uncancel", None)
    if uncancel is not None:
        uncancel()


class Reply(TupleMadeRecord, tuple["dict[str, Any] | None", "Session | None"]):
    """What :meth:`Connection.serve` answers, ``(message, session)``, made from that tuple (``Reply((message,
    session))``: tuple's own constructor, and fields read in C: no Python frame on the call path; a
    ``NamedTuple`` cost ~0.9 M instructions more to make at import, bench/startup.md).

    Attributes:
        message: the JSON-RPC response to send, or None when none is owed (a notification, a
            client's response, a request the client withdrew).
        session: the session ``initialize`` just opened (announce its id), else None.
    """

    __slots__ = ()
    _fields = ("message", "session")
    message: Final[dict[str, Any] | None] = field(0)
    session: Final[Session | None] = field(1)


NO_REPLY = Reply((None, None))
"""The :class:`Reply` owing no response (a notification, a client's response, a request the client withdrew)."""


class ConnectionHost(Received, Described, Protocol):
    """What the connection seam reads of its server: the dispatcher, what its intake reads
    (:class:`~.intake.Received`: the sessions, the replication, the stop, :meth:`attach` to serve on the loop of
    the first request when no runner attached one), and what it offers its transport's documents to read
    (:class:`~.described.Described`: :attr:`Connection.described`)."""

    dispatcher: Dispatcher


class Connection(Intake):
    """One transport's seam to the core (see the module docstring for the contract): the
    :class:`~.intake.Intake` that reads its messages (rule 2), extended with the rest of the contract.

    Args:
        core: the server core.
        transport: the transport's name, kept on the sessions it opens (``"streamable-http"``,
            ``"sse"``, ``"stdio"``, ``"rest"``); only Streamable HTTP sessions are resumable.
        server: the public server object (``MCPServer``) a tool's ``ctx.server`` gives, or None.
        one_peer: the connection serves one client (stdio, an in-memory client): a
            ``notifications/cancelled`` may then name a request of it in no session by id (a
            2026-07-28 request, a handshake-era one sent without ``initialize``; :meth:`withdraw`),
            where over HTTP the client closing the request's connection or stream cancels one.
    """

    core: ConnectionHost

    def __init__(self, core: ConnectionHost, transport: str, server: object = None, *, one_peer: bool = False) -> None:
        super().__init__(core, transport, server)
        self.in_flight: set[RequestContext] = set()
        self.sessionless = Sessionless() if one_peer else None
        """With ``one_peer``, its requests in no session by id (:mod:`.sessionless`); else None."""

    # -- sessions --------------------------------------------------------------------------
    def find_session(self, session_id: str | None, principal: Principal | None = None) -> Session | None:
        """The live session ``session_id`` names, touched; None when unknown, expired, or
        opened by another principal (a session is its opener's alone)."""
        session = self.core.sessions.owned(session_id, principal)
        if session is not None:
            session.touch()
        return session

    async def lookup_session(self, session_id: str | None, principal: Principal | None = None) -> Session | None:
        """:meth:`find_session` for any process of the server: with a shared state store the
        session's record is loaded from it (a session opened by another process is served
        here, one ended elsewhere is gone here too).

        Raises:
            StateUnavailable: the shared store cannot be reached (503 with ``Retry-After``).
        """
        replication = self.core.replication
        if replication is not None and session_id:
            await replication.lookup(session_id, principal.subject if principal is not None else None)
        session = self.find_session(session_id, principal)
        if session is not None and replication is not None:
            replication.used(session)  # (its principal's: another's request keeps it alive no longer)
        return session

    async def publish_session(self, session: Session) -> None:
        """Store a session this transport opened itself (legacy SSE), so every process knows it.

        Raises:
            StateUnavailable: the shared store cannot be reached.
        """
        if self.core.replication is not None:
            await self.core.replication.save(session)

    def end_session(self, session_id: str) -> bool:
        """End a session (its streams close, its work is cancelled, on every process); False
        when unknown."""
        session = self.core.sessions.get(session_id)
        if session is not None and self.core.replication is not None:
            self.core.replication.ended(session)
        return self.core.sessions.remove(session_id)

    async def delete_session(self, session_id: str) -> bool:
        """:meth:`end_session` for a client's DELETE: with a shared state store it returns once
        every process knows (the next request naming the session gets 404 wherever it lands)."""
        session = self.core.sessions.get(session_id)
        if session is not None and self.core.replication is not None:
            await self.core.replication.end(session)
        return self.core.sessions.remove(session_id)

    # -- serving ---------------------------------------------------------------------------
    async def serve(self, request: RequestContext) -> Reply:
        """Serve one message (rule 4); never raises for the client's mistakes."""
        message = request.message
        if message.kind != jsonrpc.REQUEST:
            if self.sessionless is not None and self.sessionless.withdraw(message):
                return NO_REPLY
            await self.core.dispatcher.handle(request)
            if request.session is not None:
                request.session.touch()
                try:
                    await self._store(request.session)
                except StateUnavailable:  # the store went away since the session was looked up: stored next time
                    log.warning("a change to a session could not be stored now: the shared state store is unreachable")
            return NO_REPLY
        shutdown = self.core.shutdown
        if shutdown.begun and shutdown.refuses(request):  # the server is stopping: nothing new starts
            return Reply((error_response(ServerStopping(), message.id), None))
        session = request.session
        if session is not None:
            if message.id in session.in_flight:  # its answer and a cancel naming it would be ambiguous
                return Reply((error_response(id_in_use(message.id), message.id), None))
            session.in_flight[message.id] = request  # type: ignore[index]
            replication = self.core.replication
            early = replication.cancelled_before(session, message.id) if replication else None  # type: ignore[arg-type]
            if early is not None:  # cancelled (on any process) while its POST was on its way here: it never runs
                request.cancel(early, withdrawn=True)
        elif self.sessionless is not None:  # either era: its one client may name it in notifications/cancelled
            refused = self.sessionless.start(message.id, request)  # type: ignore[arg-type]
            if refused is not None:
                return Reply((error_response(refused, message.id), None))
        self.in_flight.add(request)
        shutdown.running[request] = asyncio.current_task()
        try:
            response = None if request.withdrawn else await self.core.dispatcher.handle(request)
        except asyncio.CancelledError:
            # The server is stopping under this request (its worker pool was shut, or its grace ran out).
            response = None
            _uncancel()
        finally:
            shutdown.running.pop(request, None)
            cut = bool(shutdown.cut) and request in shutdown.cut  # cut off at the end of the stop's grace
            if cut:
                shutdown.cut.discard(request)
            self.in_flight.discard(request)
            if session is not None:
                session.in_flight.pop(message.id, None)  # type: ignore[arg-type]
                session.touch()  # idle time counts from the end of the call
            elif self.sessionless is not None:
                self.sessionless.done(message.id)  # type: ignore[arg-type]
        if cut or (response is None and not request.withdrawn):
            # Still running when the stop's grace ran out: a final answer the client can act on.
            return Reply((error_response(ServerStopping(), message.id), None))
        if request.withdrawn or request.slots.get(CLIENT_CANCELLED):
            return NO_REPLY  # (withdrawn; or a coroutine its client's cancel ended: its own answer never came)
        assert response is not None
        if shutdown.begun and "result" in response:  # its client may follow the result up (Shutdown.settling)
            shutdown.answered(request)
        opened = request.opened_session if "result" in response else None
        replication = self.core.replication
        if replication is None or (opened is None and (session is None or not replication.changed(session))):
            return Reply((response, opened))
        try:
            await self._store(opened or session)
        except StateUnavailable as exc:
            if opened is not None:
                self.core.sessions.remove(opened.id)
            return Reply((error_response(exc, message.id), None))
        return Reply((response, opened))

    async def _store(self, session: Session | None) -> None:
        """With a shared state store: store what the request changed in its session."""
        replication = self.core.replication
        if replication is not None and session is not None:
            await replication.save(session)

    def withdraw(self, message: jsonrpc.Message) -> bool:
        """Serve a ``notifications/cancelled`` naming a request in no session of this connection's
        one peer (:meth:`.sessionless.Sessionless.withdraw`): True when it named one (it gets no response);
        False for any other message, and on a connection without ``one_peer`` (serve it as usual)."""
        return self.sessionless is not None and self.sessionless.withdraw(message)

    # -- messages out ------------------------------------------------------------------------
    def unsendable_parts(self, message: object, exc: Exception, *, echoes: bool = True) -> Parts:
        """The bytes to send for a message of this server that JSON cannot hold (its write raised ``exc``):
        :func:`~nanohubmcp.protocol.sendable.unsendable_parts`, whose log names a middleware as the likely
        cause only when this server's application added one (another server's middleware is no cause).

        Raises:
            TypeError, ValueError: ``exc`` again, for a message other than a response.
        """
        return sendable.unsendable_parts(message, exc, echoes=echoes, middleware=self.middleware_added)

    def received(self, message: object) -> Any:
        """``message`` as a client reads it (:func:`~nanohubmcp.protocol.sendable.received`, the cause in its
        log as :meth:`unsendable_parts` says it)."""
        return sendable.received(message, middleware=self.middleware_added)

    @property
    def middleware_added(self) -> bool:
        """Whether this server's application added a middleware (``server.add_middleware``)."""
        return bool(self.core.dispatcher.pipeline.middleware)

    # -- readings (what a transport tells besides answers) -----------------------------------
    @property
    def described(self) -> Described:
        """The server as its documents describe it (:class:`~.described.Described`)."""
        return self.core

    @property
    def stopping(self) -> bool:
        """Whether the server began to stop (a new request is refused :class:`~nanohubmcp.errors.ServerStopping`)."""
        return self.core.shutdown.begun

    def store_trouble(self) -> str | None:
        """Why this process should get no new work now, for a readiness probe: the shared state store is
        unreachable, or refuses writes (``OOM``, ``READONLY``); None when it has no store or the store is well."""
        replication = self.core.replication
        state = replication.state if replication is not None else None
        if state is None:
            return None
        if state.down:
            return "shared state store unreachable"
        return "shared state store refuses writes" if state.refusing is not None else None

    # -- the peer went away ----------------------------------------------------------------
    @staticmethod
    def peer_gone(request: RequestContext, reason: str = "the client went away", *, read_on: bool = False) -> None:
        """The client went away: cancel this request as the client's cancel, as a ``notifications/cancelled`` does
        (an ``async def`` tool's coroutine is cancelled, and :meth:`serve` answers nothing for it). Withdrawn (no
        answer, the call recorded ``cancelled`` whatever its function does next) unless ``read_on``: its answer may
        still be read (stdio's input closed, its output perhaps not: ``printf ... | nanohubmcp run ...``), so a
        function that returns is answered."""
        request.slots[PEER_GONE] = True
        request.cancel(reason, withdrawn=not read_on)

    def close(self, reason: str = "the client went away") -> None:
        """Cancel everything this connection is serving (the transport itself ended)."""
        for request in list(self.in_flight):
            request.cancel(reason)

