"""Messages in: a body or a line read into the request context the core serves (the seam's rule 2).

:class:`Intake` is the reading half of the connection seam (:mod:`.connection`): it parses what a
transport received, decides each message's era and the protocol version in force
(:func:`~.eras.is_modern`; :func:`~.eras.handshake_version`, with a header's :func:`~.eras.spoken_version`; over
HTTP the three in one question, :func:`~.eras.in_force`, once the session a request names was read;
a 2026-07-28 request's own ``_meta``, :func:`~.stateless.envelope.modern_version`), finds the session a
handshake-era request names (not touched: serving touches it when the request ends; a 2026-07-28 request's
stray ``Mcp-Session-Id`` reads no shared store's copy, which would keep it alive), and builds its
:class:`RequestContext`.
An HTTP transport hands it a whole body and its headers' values (:meth:`Intake.receive`); a
transport with one peer and its own session hands it each line (:meth:`Intake.read`,
:meth:`Intake.admit`). The :class:`~.connection.Connection` a transport holds is an :class:`Intake`
extended with the rest of the seam, so these verbs are its own (one definition, no call in between);
serving what was read, ending sessions and a peer going away are the connection's.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol

from ..errors import ProtocolError, ServerStopping, SessionNotFound
from ..protocol import jsonrpc, versions
from ..protocol.tuple_records import TupleMadeRecord, field
from ..state.errors import StateUnavailable
from .batches import batch_refusal
from .eras import handshake_version, in_force, is_modern, spoken_version
from .stateless.envelope import modern_version
from .wire.request import LARGE_MESSAGE_BYTES, RequestContext
from .wire.streams import OutboundStream
from .wire.trace_context import carrier_from

if TYPE_CHECKING:
    from .shutdown import Shutdown
    from .wire.notifier import Notifier
    from .wire.principal import Principal
    from .wire.replication import Replication
    from .wire.sessions import Session, SessionStore

MEMORY_TRANSPORT = "memory"
"""The in-memory transport's name (``nanohubmcp.testing``'s clients): the first request of one attaches the
core as a testing client's (:meth:`Received.attach`), not as a server's real clients'."""


class Incoming(TupleMadeRecord, tuple["jsonrpc.Message | None", bool, "RequestContext | None", "list[Any] | None",
                         "versions.ProtocolVersion | None", "Session | None", bool]):
    """One POSTed body as :meth:`Connection.receive` read it: everything the transport needs next,
    ``(message, modern, request, batch, version, session, large)``, made from that tuple
    (``Incoming((message, modern, ...))``: tuple's own constructor, and fields read in C: no Python frame on
    the call path; a ``NamedTuple`` cost ~0.9 M instructions more to make at import, bench/startup.md).

    Attributes:
        message: the one message (None for a batch).
        modern: the message belongs to the stateless era (2026-07-28).
        request: its request context, to serve; None for a batch, and for a 2026-07-28 message
            that is not a request (that era's clients send none the server serves over HTTP).
        batch: a batch's raw members (None for one message); serve them with
            :func:`~.batches.serve_batch` at ``version`` in ``session``.
        version: the protocol version in force (None for a 2026-07-28 message that is not a request).
        session: the handshake-era session the message names, else None.
        large: a batch read from a body (or line) of at least
            :data:`~.wire.request.LARGE_MESSAGE_BYTES`: serve it with ``large=True``, so its
            members' arguments are checked on a worker thread (one message's request says it itself).
    """

    __slots__ = ()
    _fields = ("message", "modern", "request", "batch", "version", "session", "large")
    message: Final[jsonrpc.Message | None] = field(0)
    modern: Final[bool] = field(1)
    request: Final[RequestContext | None] = field(2)
    batch: Final[list[Any] | None] = field(3)
    version: Final[versions.ProtocolVersion | None] = field(4)
    session: Final[Session | None] = field(5)
    large: Final[bool] = field(6)


class Received(Protocol):
    """What reading messages uses of the server core: its sessions (kept in step across processes
    by ``replication`` when shared), and :meth:`attach` to serve on the loop of the first request
    when no runner attached one (``notifier`` is None until then) and the server is not stopping
    (``shutdown``)."""

    sessions: SessionStore
    replication: Replication | None
    notifier: Notifier | None
    shutdown: Shutdown

    def attach(self, loop: asyncio.AbstractEventLoop, *, testing: bool = False) -> None:
        """Serve on ``loop`` (change notifications are delivered there); ``testing``: for a testing
        client (the in-memory transport), real clients may not come."""
        ...


class Intake:
    """One transport's way in: messages read into request contexts (see the module docstring).

    Args:
        core: the server core.
        transport: the transport's name, kept on the sessions it opens and on each request.
        server: the public server object (``MCPServer``) a tool's ``ctx.server`` gives, or None.
    """

    def __init__(self, core: Received, transport: str, server: object = None) -> None:
        self.core = core
        self.transport = transport
        self.server = server

    def open_session(self, version: str, principal: Principal | None = None) -> Session:
        """Mint a session for this transport, belonging to ``principal`` (when authenticated)."""
        subject = principal.subject if principal is not None else None
        return self.core.sessions.create(version, transport=self.transport, principal=subject)

    @staticmethod
    def parse(body: bytes | str, *, large: bool = False) -> jsonrpc.Message | list[Any]:
        """One message, or a batch's raw members (classified when served). ``large``: see
        :func:`~nanohubmcp.protocol.jsonrpc.parse_body` (:meth:`parse_large` passes it).

        Raises:
            ParseError, InvalidRequest: the body is not JSON, or not a JSON-RPC message.
        """
        parsed = jsonrpc.parse_body(body, large=large)
        if isinstance(parsed, list):
            return parsed
        return jsonrpc.classify(parsed)

    @staticmethod
    async def parse_large(body: bytes | str) -> jsonrpc.Message | list[Any]:
        """:meth:`parse` on a worker thread: for a body of at least
        :data:`~.wire.request.LARGE_MESSAGE_BYTES` (mark its request :attr:`~RequestContext.large`)."""
        return await asyncio.to_thread(Intake.parse, body, large=True)

    async def receive(
        self,
        body: bytes | str,
        *,
        session_id: str | None = None,
        header_version: str | None = None,
        principal: Principal | None = None,
        wants_stream: bool = False,
        trace_headers: Mapping[str, Any] | None = None,
    ) -> Incoming:
        """Read one body a client sent over HTTP: the message (or batch), its era, the version in force,
        the session it names, and its request context: decided here once, in the spec's order.

        Args:
            body: the request body.
            session_id: the ``Mcp-Session-Id`` header (never adopted for ``initialize``).
            header_version: the ``MCP-Protocol-Version`` header.
            principal: the caller the transport authenticated.
            wants_stream: the client takes related messages before the response (an SSE reply):
                the request gets a stream (the session's, resumable, when it has one), made when
                first asked for (:meth:`RequestContext.defer_stream`).
            trace_headers: the HTTP headers, for a request's W3C trace context.

        Raises:
            ParseError, InvalidRequest: not JSON, not a JSON-RPC message, an
                ``MCP-Protocol-Version`` this server does not speak, a batch the version lacks.
            InvalidEnvelope, HeaderMismatch, UnsupportedProtocolVersion: a 2026-07-28 request's
                ``_meta`` and header (:func:`modern_version`), with the request's id.
            SessionNotFound: ``session_id`` names no live session of ``principal`` (HTTP 404).
            ServerStopping: the same while the server stops (HTTP 503; :meth:`missing_session`).
            StateUnavailable: the shared state store cannot be reached (503 with ``Retry-After``).
        """
        large = len(body) >= LARGE_MESSAGE_BYTES
        parsed = await asyncio.to_thread(jsonrpc.parse_body, body, large=True) if large else jsonrpc.parse_body(body)
        if isinstance(parsed, list):
            header = spoken_version(header_version)
            session = await self.named_session(session_id, principal)
            if session_id and session is None:
                raise self.missing_session("Session not found: initialize again")
            version = handshake_version(session, header)
            refused = batch_refusal(version, parsed)
            if refused is not None:
                raise refused
            return Incoming((None, False, None, parsed, version, session, large))
        message = jsonrpc.classify(parsed)
        is_request = message.kind == jsonrpc.REQUEST
        opens = is_request and message.method == "initialize"  # never adopt a client-chosen id
        session = None
        local = False
        if session_id and not opens:
            # Read first when it is here (no round trip): the eras are then asked once, era and version
            # together; the stateless era leaves it unused. A shared store's copy is read only once the request
            # is known to be of the handshake era, its header one this server speaks: reading it keeps the
            # session alive (its idle clock restarted), which a 2026-07-28 request, or a refused one, must not.
            replication = self.core.replication
            if replication is None:  # this process's own sessions: the read changes nothing
                local = True
                session = self.core.sessions.owned(session_id, principal)
            elif in_force(message, header_version, None) is not None:
                try:
                    local = replication.held(session_id) is not None
                except StateUnavailable as exc:  # the refusal names the request it refuses
                    raise exc.naming(message.id) from exc
                if local:
                    session = self.core.sessions.owned(session_id, principal)
                    if session is not None:
                        replication.used(session)  # (its principal's: another's keeps it alive no longer)
        in_effect = in_force(message, header_version, session)
        if in_effect is None:  # the stateless era (2026-07-28)
            if not is_request:
                return Incoming((message, True, None, None, None, None, False))
            version, caps = modern_version(message, header_version, check_header=True, request_id=message.id)
            request = self.request(message, version=version, client_capabilities=caps, principal=principal,
                                   trace_headers=trace_headers)
            request.large = large
            if wants_stream:
                request.defer_stream(_modern_stream)
            return Incoming((message, True, request, None, version, None, False))
        if session_id and not opens and session is None:
            if not local:  # not held here in step: asked of the shared store
                try:
                    session = await self.named_session(session_id, principal)
                except StateUnavailable as exc:
                    raise exc.naming(message.id) from exc
            if session is None:
                raise self.missing_session(
                    "Session not found: it expired or was deleted; initialize again without Mcp-Session-Id",
                    message.id)
            in_effect = handshake_version(session)
        version = in_effect
        if not is_request:
            return Incoming((message, False, self.request(message, version=version, session=session,
                                                          principal=principal), None, version, session, False))
        request = self.request(message, version=version, session=session, opens_session=opens, principal=principal,
                               trace_headers=trace_headers)
        request.large = large
        if wants_stream:  # made at the first related message (most calls send none: a JSON reply)
            request.defer_stream(functools.partial(session.new_stream, message.id) if session is not None
                                 else _sessionless_stream)
        return Incoming((message, False, request, None, version, session, False))

    def read(self, body: bytes | str, *, session: Session | None = None,
             stream: OutboundStream | None = None, principal: Principal | None = None,
             parsed: jsonrpc.Message | list[Any] | None = None, version: str | None = None) -> Incoming:
        """One line (or body) of a connection's one peer (stdio, an in-memory client), parsed and
        :meth:`admit`-ted; a batch comes back as the :class:`Incoming`'s ``batch``, checked against the
        version in force (the peer's session's, else ``version``, else 2025-03-26). ``principal``: the
        peer, when the transport authenticated it (stdio with ``auth=``: the token in its environment),
        carried by every request. ``parsed``: the body as :meth:`parse` read it already
        (:meth:`read_large`). ``version``: as :meth:`admit`'s.

        Raises:
            ParseError, InvalidRequest: not JSON, not a JSON-RPC message, a batch the version lacks.
            InvalidEnvelope, UnsupportedProtocolVersion: see :meth:`admit`.
        """
        if parsed is None:
            parsed = self.parse(body)
        if isinstance(parsed, list):
            in_force = handshake_version(session, version)
            refused = batch_refusal(in_force, parsed)
            if refused is not None:
                raise refused
            return Incoming((None, False, None, parsed, in_force, session, False))
        return self.admit(parsed, session=session, stream=stream, principal=principal, version=version)

    async def read_large(self, body: bytes | str, *, session: Session | None = None,
                         stream: OutboundStream | None = None, principal: Principal | None = None,
                         version: str | None = None) -> Incoming:
        """:meth:`read` of a body of at least :data:`~.wire.request.LARGE_MESSAGE_BYTES`: parsed on a
        worker thread, its request (or batch) marked large (its arguments are checked there too)."""
        parsed = await self.parse_large(body)
        incoming = self.read(body, session=session, stream=stream, principal=principal, parsed=parsed,
                             version=version)
        if incoming.request is not None:
            incoming.request.large = True
        elif incoming.batch is not None:
            return Incoming((*incoming[:6], True))
        return incoming

    def admit(self, message: jsonrpc.Message, *, session: Session | None = None,
              stream: OutboundStream | None = None, principal: Principal | None = None,
              version: str | None = None) -> Incoming:
        """One message of a connection's one peer (stdio): its era, the version in force and its
        request context, decided here once. ``session`` is the peer's (not used by ``initialize``,
        which opens a new one, nor in the stateless era); ``stream`` carries related messages;
        ``principal`` is the peer the transport authenticated (None without authorization);
        ``version`` the version of a handshake-era request without a session, as an
        ``MCP-Protocol-Version`` header would say it (one this server speaks; None: 2025-03-26).

        Raises:
            InvalidEnvelope, UnsupportedProtocolVersion: a 2026-07-28 request's ``_meta``
                (:func:`modern_version`), with the request's id.
        """
        is_request = message.kind == jsonrpc.REQUEST
        if is_modern(message):
            if not is_request:
                return Incoming((message, True, None, None, None, None, False))
            modern, caps = modern_version(message, request_id=message.id)
            return Incoming((message, True, self.request(message, version=modern, stream=stream,
                                                         client_capabilities=caps, principal=principal),
                             None, modern, None, False))
        opens = is_request and message.method == "initialize"
        if opens:
            session = None
        in_force = handshake_version(session, version)
        return Incoming((message, False, self.request(message, version=in_force, session=session, stream=stream,
                                                      opens_session=opens, principal=principal),
                         None, in_force, session, False))

    async def named_session(self, session_id: str | None, principal: Principal | None) -> Session | None:
        """The live session ``session_id`` names, of ``principal`` (any process's, with a shared
        store), not touched: serving the request touches it when it ends."""
        if not session_id:
            return None
        replication = self.core.replication
        if replication is not None and replication.held(session_id) is None:
            await replication.lookup(session_id, principal.subject if principal is not None else None)  # ask the store
        session = self.core.sessions.owned(session_id, principal)
        if session is not None and replication is not None:
            replication.used(session)  # (its principal's: another's request keeps it alive no longer)
        return session

    def missing_session(self, text: str, request_id: str | int | None = None) -> ProtocolError:
        """The refusal of a session id that names no session here: :class:`SessionNotFound` with
        ``text`` (HTTP 404: initialize again), but :class:`ServerStopping` while the server stops
        (HTTP 503: retry). A stopping server closes its link to the shared state store first, so a
        session of the store (of another process) is no longer found though it lives on; a 404 then
        made clients drop valid sessions during every rolling restart (trial42 T42-15)."""
        if self.core.shutdown.begun:
            return ServerStopping(request_id)
        return SessionNotFound(text, request_id=request_id)

    def request(
        self,
        message: jsonrpc.Message,
        *,
        version: str,
        session: Session | None = None,
        stream: OutboundStream | None = None,
        client_capabilities: dict[str, Any] | None = None,
        opens_session: bool = False,
        argument_errors: str | None = None,
        data_only: bool = False,
        principal: Principal | None = None,
        trace_headers: Mapping[str, Any] | None = None,
    ) -> RequestContext:
        """The request context for ``message`` (see :mod:`.connection`'s docstring, rule 2).

        Args:
            opens_session: ``initialize`` may mint a session of this transport.
            argument_errors: overrides the server's ``argument_errors`` option for this request
                (REST asks for ``"protocol"``: invalid arguments are its 400).
            data_only: the answer carries data only and all of it (REST asks for it; see
                :class:`~.wire.request.RequestContext`).
            principal: the caller the transport's verifier authenticated (None without
                authorization); it rides in the request context, the core never sees headers.
            trace_headers: the HTTP request's headers, for its W3C trace context (only
                ``traceparent``, ``tracestate`` and ``baggage`` are kept, and only with a
                ``traceparent``): the tracing layer continues the client's trace from them when
                the message's ``params._meta`` carries none.
        The call pipeline's layers (per-tool scopes among them) run when it is served.
        """
        loop = asyncio.get_running_loop()
        if self.core.notifier is None and not self.core.shutdown.begun:
            # First request on a loop no runner attached (an application from make_app() on an
            # HTTP server of the user's own, or stdio): change notifications need a loop. (Not a
            # request reaching a stopping server: it is refused, and serves nothing again.)
            self.core.attach(loop, testing=self.transport == MEMORY_TRANSPORT)
        # positional: a class called with keywords gets them as a dict, unpacked again for __init__
        request = RequestContext(message, version, loop, session, stream, client_capabilities, principal, self.server)
        if opens_session:
            request.open_session = functools.partial(self.open_session, principal=principal)
        request.argument_errors = argument_errors
        request.data_only = data_only
        request.transport = self.transport
        if trace_headers is not None and "traceparent" in trace_headers:  # else there is no carrier
            request.trace_headers = carrier_from(trace_headers)
        return request


def _modern_stream() -> OutboundStream:
    return OutboundStream("m", resumable=False)


def _sessionless_stream() -> OutboundStream:
    return OutboundStream("x", resumable=False)
