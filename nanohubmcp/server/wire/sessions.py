"""Sessions of the handshake era: minted by the server, expired when idle, isolated.

A :class:`Session` holds what one client negotiated (version, capabilities), its log level and
subscriptions, its pending server→client requests (answered only through the same session),
its in-flight requests (cancellable only by the same session), and its outbound streams.

Ids are 32 random bytes, URL-safe base64 (``secrets``): unguessable and never taken from the
client (MCP 2025-11-25, Transports § Session Management), so a client cannot fix another's
session id in advance. Runs on the event loop thread.
"""

from __future__ import annotations

import asyncio
import functools
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import ServerBusy
from ...protocol.versions import ProtocolVersion
from ...state.base import session_key
from .finished_streams import FinishedStreams
from .streams import OutboundStream


def session_digest(session_id: str) -> str:
    """How logs and records name a session: the first 12 hex digits of :func:`session_key` (the
    id itself is a credential when there is no authorization)."""
    return session_key(session_id)[:12]


if TYPE_CHECKING:  # for type checkers only: a Protocol class costs ~0.14 M instructions to make at import
    from .principal import Principal

    class StreamRelay(Protocol):
        """Where a session's streams come from when sessions are shared across processes
        (:class:`~nanohubmcp.server.wire.replication.Replication`): streams other processes can
        write to and resume."""

        def post_stream(self, session: Session, request_id: Any) -> OutboundStream:
            """The stream answering one POSTed request of ``session``."""
            ...

        def standalone(self, session: Session) -> OutboundStream:
            """The standalone (GET) stream of ``session``."""
            ...

        def resumed(self, session: Session, stream_id: str) -> OutboundStream | None:
            """Stream ``stream_id`` of ``session``, to resume, or None when unknown."""
            ...

        def ended(self, session: Session) -> None:
            """``session`` was ended here (evicted to make room): end it on every process."""
            ...

        def unrelated(self, session: Session, message: dict[str, Any]) -> bool:
            """Send ``message`` on the standalone stream of ``session``, whichever process reads it."""
            ...


DEFAULT_IDLE_SECONDS = 3600.0
MAX_SESSIONS = 10_000
MAX_STREAMS = 64
EVICTION_PROBES = 16
"""At most this many of the least recently used sessions are looked at to make room for a new one."""
FULL_RETRY_SECONDS = 30
"""``Retry-After`` when every session is busy (a stream open or a call in flight)."""
PRINCIPAL_SHARE = 10
"""By default one principal may hold at most ``max_sessions // PRINCIPAL_SHARE`` sessions (at least 1)."""


class Session:
    """State of one client session."""

    def __init__(self, session_id: str, version: str, *, transport: str = "streamable-http") -> None:
        self.id = session_id
        self.version = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
        self.transport = transport
        self.principal: str | None = None
        """The subject of the principal that opened the session; only it may use the session."""
        self.client_capabilities: dict[str, Any] = {}
        self.client_info: dict[str, Any] = {}
        self.initialized = False
        self.log_level: str | None = None
        self.subscriptions: dict[str, str] = {}
        """The resource URIs subscribed to, each as the client sent it, keyed by the form URIs are compared
        in (:func:`~nanohubmcp.protocol.uris.comparison_form`: ``CONFIG://%6Cab`` and ``config://lab`` are
        one)."""
        self.pending: dict[str | int, asyncio.Future[Any]] = {}
        self.in_flight: dict[str | int, Any] = {}
        self.streams: dict[str, OutboundStream] = {}
        self.standalone: OutboundStream | None = None
        self.last_seen = self.started = time.monotonic()
        self.closed = False
        self._stream_counter = 0
        self._on_touch: Callable[[Session], None] | None = None
        self.relay: StreamRelay | None = None
        """With a shared state store: makes this session's streams cross processes."""
        self.finished: FinishedStreams | None = None
        """Bounds the finished streams kept for a late resume in bytes (None: by count only)."""

    @functools.cached_property
    def key(self) -> str:
        """The session's key, :func:`~nanohubmcp.state.base.session_key` of its id (64 hex digits): what
        records and spans name it by, never the id. Made at the first use and kept (a SHA-256 and its hex
        text per traced call cost ~2.5k instructions, bench/otel.md)."""
        return session_key(self.id)

    def set_touch_callback(self, callback: Callable[[Session], None] | None) -> None:
        """Call ``callback(session)`` on each :meth:`touch` (the store keeps its idle order)."""
        self._on_touch = callback

    def touch(self) -> None:
        """Mark activity (idle expiry counts from the last request, call end or stream close)."""
        self.last_seen = time.monotonic()
        if self._on_touch is not None:
            self._on_touch(self)

    @property
    def busy(self) -> bool:
        """A call in flight, a server→client request pending, or a client reading a stream."""
        return bool(self.in_flight or self.pending) or any(st.reading for st in self.streams.values())

    @property
    def resumable(self) -> bool:
        """Streams carry event ids from 2025-03-26 on (Streamable HTTP only)."""
        return self.transport == "streamable-http" and self.version.resumable_streams

    def new_stream(self, request_id: str | int | None = None) -> OutboundStream:
        """Open a stream for one POST response (answering ``request_id``); old finished streams
        are dropped first."""
        self._stream_counter += 1
        if self.relay is not None:
            stream = self.relay.post_stream(self, request_id)
        else:
            stream = OutboundStream(f"s{self._stream_counter}", resumable=self.resumable)
        if len(self.streams) >= MAX_STREAMS:
            for sid in [s for s, st in self.streams.items() if st.done or st.closed][: MAX_STREAMS // 2]:
                old = self.streams.pop(sid)
                if self.finished is not None:
                    self.finished.forget(self, old)
        if self.finished is not None:
            self.finished.opened(self, stream)
        self.streams[stream.stream_id] = stream
        return stream

    def drop_stream(self, stream: OutboundStream) -> None:
        """Forget a finished ``stream`` and what it kept (past :mod:`.finished_streams`' bounds): a resume
        naming it is then answered as one naming a stream never known."""
        if self.streams.get(stream.stream_id) is stream:
            del self.streams[stream.stream_id]
        stream.release()

    def get_standalone(self) -> OutboundStream:
        """The stream for messages unrelated to any request (GET /mcp, or the legacy SSE stream)."""
        if self.standalone is None:
            standalone = self.relay.standalone(self) if self.relay else OutboundStream("g", resumable=self.resumable)
            self.streams["g"] = self.standalone = standalone
            if self.finished is not None:
                self.finished.opened(self, self.standalone, finishes=False)
        return self.standalone

    def stream_for_event(self, event_id: str) -> OutboundStream | None:
        """The stream a ``Last-Event-ID`` belongs to."""
        stream = self.streams.get(stream_id := event_id.split(".", 1)[0])
        if stream is None and self.relay is not None and stream_id:
            stream = self.relay.resumed(self, stream_id)
        return stream

    def cancel_work(self, reason: str = "session closed") -> None:
        """Cancel the session's work and fail its pending requests; its streams stay open."""
        for fut in self.pending.values():
            if not fut.done():
                fut.cancel()
        self.pending.clear()
        for request in list(self.in_flight.values()):
            request.cancel(reason)

    def close(self) -> None:
        """End the session: cancel its work, fail its pending requests, close its streams."""
        if self.closed:
            return
        self.closed = True
        self.cancel_work()
        if self.finished is not None:
            self.finished.session_ended(self)
        for stream in list(self.streams.values()):
            stream.close()
        self.streams.clear()


class SessionStore:
    """All live sessions of a server, with idle expiry and a limit.

    Sessions are kept least recently used first, so expiry and eviction look only at the
    front: each new session costs O(1) however many there are. At the limit, the least
    recently used session that is quiet (no open stream, no call in flight) makes room;
    when the ones looked at are all busy, the new session is refused with
    :class:`~nanohubmcp.errors.ServerBusy` (HTTP 503 with ``Retry-After``) rather than
    taking a session a client is using.

    An authenticated principal may hold only a share of the table (``max_per_principal``), so
    one user, or one client looping on connect, cannot lock everyone else out: at its share the
    principal's own least recently used quiet session makes room, else that principal alone is
    refused with ``ServerBusy``. Without authorization every client is the same anonymous
    caller, so only the overall limit applies.

    Args:
        idle_seconds: a session unused this long is closed (default 1 h).
        max_sessions: how many sessions may live at once (default 10,000).
        max_per_principal: how many of them one authenticated principal may hold (default
            ``max(1, max_sessions // 10)``, so 1,000; read when a session is created).
    """

    def __init__(
        self,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
        max_sessions: int = MAX_SESSIONS,
        max_per_principal: int | None = None,
    ) -> None:
        self.idle_seconds = idle_seconds
        self.max_sessions = max_sessions
        self._max_per_principal = max_per_principal
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._by_principal: dict[str, OrderedDict[str, Session]] = {}
        self.relay: StreamRelay | None = None
        """With a shared state store: the sessions of this process are replicas of its records."""
        self.finished = FinishedStreams()
        """The finished streams the sessions keep for a late resume, bounded in bytes and time."""
        self._on_close: list[Callable[[Session], None]] = []

    def add_close_callback(self, callback: Callable[[Session], None]) -> None:
        """Call ``callback(session)`` for each session this store closes (ended, expired,
        evicted, at shutdown), after the callbacks added before it."""
        self._on_close.append(callback)

    def use_relay(self, relay: StreamRelay | None) -> None:
        """Make this process's sessions replicas of a shared store's records (``relay``: the
        replication), or stop (None). Sessions opened from now on take their streams from it."""
        self.relay = relay

    @property
    def max_per_principal(self) -> int:
        """Sessions one authenticated principal may hold at once."""
        if self._max_per_principal is not None:
            return self._max_per_principal
        return max(1, self.max_sessions // PRINCIPAL_SHARE)

    @max_per_principal.setter
    def max_per_principal(self, value: int | None) -> None:
        self._max_per_principal = value

    def create(self, version: str, *, transport: str = "streamable-http", principal: str | None = None) -> Session:
        """Mint a new session with an unguessable id, belonging to ``principal`` (a subject) if given.

        Raises:
            ServerBusy: the principal holds its share of sessions and all are busy, or the
                overall limit is reached and no quiet session can make room.
        """
        self._expire_front(time.monotonic())
        own = self._by_principal.get(principal) if principal is not None else None
        cap = self.max_per_principal
        if own is not None and len(own) >= cap and not self._evict_one(own):
            raise ServerBusy(
                f"Too many sessions for this principal: at most {cap} per principal, and all are open and busy; "
                f"retry in {FULL_RETRY_SECONDS} s, or end unused sessions with DELETE",
                retry_after=FULL_RETRY_SECONDS,
            )
        if len(self._sessions) >= self.max_sessions and not self._evict_one(self._sessions):
            raise ServerBusy(
                f"Too many sessions: {self.max_sessions} are open and busy; retry in {FULL_RETRY_SECONDS} s, "
                "or end unused sessions with DELETE",
                retry_after=FULL_RETRY_SECONDS,
            )
        return self._add(Session(secrets.token_urlsafe(32), version, transport=transport), principal)

    def adopt(self, session_id: str, version: str, *, transport: str, principal: str | None) -> Session:
        """Hold here a session another process of this server opened (its record in the shared
        store names it); the limits do not apply: it exists already."""
        self._expire_front(time.monotonic())
        old = self._sessions.get(session_id)
        if old is not None:
            return old
        return self._add(Session(session_id, version, transport=transport), principal)

    def _add(self, session: Session, principal: str | None) -> Session:
        session.principal = principal
        session.set_touch_callback(self._touched)
        session.relay = self.relay
        session.finished = self.finished
        self._sessions[session.id] = session
        if principal is not None:
            self._by_principal.setdefault(principal, OrderedDict())[session.id] = session
        return session

    def _touched(self, session: Session) -> None:
        if self._sessions.get(session.id) is session:
            self._sessions.move_to_end(session.id)
            if session.principal is not None:
                self._by_principal[session.principal].move_to_end(session.id)

    def _evict_one(self, order: OrderedDict[str, Session]) -> bool:
        """Close the least recently used quiet session in ``order`` (all sessions, or one
        principal's); busy ones met on the way move back."""
        for _ in range(min(EVICTION_PROBES, len(order))):
            sid, session = next(iter(order.items()))
            if not session.busy:
                self.remove(sid)
                if self.relay is not None:
                    # Ended in the shared store too: else its next request, on any process,
                    # loads it again and the limits never hold (trial14 F4).
                    self.relay.ended(session)
                return True
            order.move_to_end(sid)  # in use: not a candidate now
        return False

    def _expire_front(self, now: float) -> None:
        """Close expired sessions at the front (the least recently used), stopping at a live one."""
        for _ in range(EVICTION_PROBES):
            if not self._sessions:
                return
            sid, session = next(iter(self._sessions.items()))
            if now - session.last_seen <= self.idle_seconds:
                return
            if session.busy:
                self._sessions.move_to_end(sid)
            else:
                self.remove(sid)

    def get(self, session_id: str | None) -> Session | None:
        """The live session with this id, or None (an idle session found expired is closed here)."""
        if not session_id:
            return None
        session = self._sessions.get(session_id)
        if session is None or session.closed:
            return None
        if time.monotonic() - session.last_seen > self.idle_seconds and self._expired(session, time.monotonic()):
            self.remove(session.id)
            return None
        return session

    def owned(self, session_id: str | None, principal: Principal | None) -> Session | None:
        """:meth:`get`, of the session ``principal`` opened (None without authorization): None when
        another opened it (a session is its opener's alone). Not touched."""
        session = self.get(session_id)
        if session is None or session.principal != (principal.subject if principal is not None else None):
            return None
        return session

    def _expired(self, session: Session, now: float) -> bool:
        """Idle longer than ``idle_seconds``, with no call in flight and no open stream."""
        return now - session.last_seen > self.idle_seconds and not session.busy

    def remove(self, session_id: str) -> bool:
        """Close and forget a session; False when unknown."""
        session = self._sessions.pop(session_id, None)
        if session is None:
            return False
        principal = session.principal
        own = self._by_principal.get(principal) if principal is not None else None
        if principal is not None and own is not None:
            own.pop(session_id, None)
            if not own:
                del self._by_principal[principal]
        session.set_touch_callback(None)
        session.close()
        for callback in self._on_close:
            callback(session)
        return True

    def sweep(self, now: float | None = None) -> int:
        """Close sessions idle longer than ``idle_seconds`` that have no open stream or work."""
        now = time.monotonic() if now is None else now
        self.finished.expire(now)
        expired = [s.id for s in self._sessions.values() if self._expired(s, now)]
        for sid in expired:
            self.remove(sid)
        return len(expired)

    def __len__(self) -> int:
        return len(self._sessions)

    def all(self) -> list[Session]:
        """Every live session."""
        return list(self._sessions.values())

    def cancel_all(self) -> None:
        """Cancel every session's work, leaving their streams open (a server stopping: the answers
        of its last calls still go on them); :meth:`close_all` ends them."""
        for session in list(self._sessions.values()):
            session.cancel_work("the server is shutting down")

    def close_all(self) -> None:
        """Close every session (server shutdown)."""
        for sid in list(self._sessions):
            self.remove(sid)
