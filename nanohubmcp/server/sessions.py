"""Sessions of the handshake era: minted by the server, expired when idle, isolated.

A :class:`Session` holds what one client negotiated (version, capabilities), its log level and
subscriptions, its pending server→client requests (answered only through the same session),
its in-flight requests (cancellable only by the same session), and its outbound streams.

Ids are 32 random bytes, URL-safe base64 (``secrets``): unguessable and never taken from the
client (MCP 2025-11-25, Transports § Session Management; fixes the earlier package's session
fixation, study § f 2). Runs on the event loop thread.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

from .streams import OutboundStream

DEFAULT_IDLE_SECONDS = 3600.0
MAX_SESSIONS = 10_000
MAX_STREAMS = 64


class Session:
    """State of one client session."""

    def __init__(self, session_id: str, version: str, *, transport: str = "streamable-http") -> None:
        self.id = session_id
        self.version = version
        self.transport = transport
        self.client_capabilities: dict[str, Any] = {}
        self.client_info: dict[str, Any] = {}
        self.initialized = False
        self.log_level: str | None = None
        self.subscriptions: set[str] = set()
        self.pending: dict[str | int, asyncio.Future[Any]] = {}
        self.in_flight: dict[str | int, Any] = {}
        self.streams: dict[str, OutboundStream] = {}
        self.standalone: OutboundStream | None = None
        self.last_seen = time.monotonic()
        self.closed = False
        self._stream_counter = 0

    def touch(self) -> None:
        """Mark activity (idle expiry counts from the last request, call end or stream close)."""
        self.last_seen = time.monotonic()

    @property
    def resumable(self) -> bool:
        """Streams carry event ids from 2025-03-26 on (Streamable HTTP only)."""
        return self.transport == "streamable-http" and self.version >= "2025-03-26"

    def new_stream(self) -> OutboundStream:
        """Open a stream for one POST response; old finished streams are dropped first."""
        self._stream_counter += 1
        stream = OutboundStream(f"s{self._stream_counter}", resumable=self.resumable)
        if len(self.streams) >= MAX_STREAMS:
            for sid in [s for s, st in self.streams.items() if st.done or st.closed][: MAX_STREAMS // 2]:
                del self.streams[sid]
        self.streams[stream.stream_id] = stream
        return stream

    def get_standalone(self) -> OutboundStream:
        """The stream for messages unrelated to any request (GET /mcp, or the legacy SSE stream)."""
        if self.standalone is None:
            self.standalone = OutboundStream("g", resumable=self.resumable)
            self.streams["g"] = self.standalone
        return self.standalone

    def stream_for_event(self, event_id: str) -> OutboundStream | None:
        """The stream a ``Last-Event-ID`` belongs to."""
        return self.streams.get(event_id.split(".", 1)[0])

    def close(self) -> None:
        """End the session: cancel its work, fail its pending requests, close its streams."""
        if self.closed:
            return
        self.closed = True
        for fut in self.pending.values():
            if not fut.done():
                fut.cancel()
        self.pending.clear()
        for request in list(self.in_flight.values()):
            request.cancel("session closed")
        for stream in list(self.streams.values()):
            stream.close()
        self.streams.clear()


class SessionStore:
    """All live sessions of a server, with idle expiry.

    Args:
        idle_seconds: a session unused this long is closed (default 1 h).
    """

    def __init__(self, idle_seconds: float = DEFAULT_IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self._sessions: dict[str, Session] = {}

    def create(self, version: str, *, transport: str = "streamable-http") -> Session:
        """Mint a new session with an unguessable id."""
        self.sweep()
        if len(self._sessions) >= MAX_SESSIONS:
            oldest = min(self._sessions.values(), key=lambda s: s.last_seen)
            self.remove(oldest.id)
        session = Session(secrets.token_urlsafe(32), version, transport=transport)
        self._sessions[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        """The live session with this id, or None (an idle session found expired is closed here)."""
        if not session_id:
            return None
        session = self._sessions.get(session_id)
        if session is None or session.closed:
            return None
        if self._expired(session, time.monotonic()):
            self.remove(session.id)
            return None
        return session

    def _expired(self, session: Session, now: float) -> bool:
        """Idle longer than ``idle_seconds``, with no call in flight and no open stream."""
        return (now - session.last_seen > self.idle_seconds and not session.in_flight
                and not any(st.sink is not None for st in session.streams.values()))

    def remove(self, session_id: str) -> bool:
        """Close and forget a session; False when unknown."""
        session = self._sessions.pop(session_id, None)
        if session is None:
            return False
        session.close()
        return True

    def sweep(self, now: float | None = None) -> int:
        """Close sessions idle longer than ``idle_seconds`` that have no open stream or work."""
        now = time.monotonic() if now is None else now
        expired = [s.id for s in self._sessions.values() if self._expired(s, now)]
        for sid in expired:
            self.remove(sid)
        return len(expired)

    def __len__(self) -> int:
        return len(self._sessions)

    def all(self) -> list[Session]:
        """Every live session."""
        return list(self._sessions.values())

    def close_all(self) -> None:
        """Close every session (server shutdown)."""
        for sid in list(self._sessions):
            self.remove(sid)
