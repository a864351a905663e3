"""The finished response streams a process keeps for a late resume: bounded in bytes and in time.

A POST response stream that carried its answer as SSE keeps its messages after its end, so a client whose
connection dropped before the end can resume it with ``Last-Event-ID`` and get what it missed (MCP 2025-11-25,
Basic § Transports § Streamable HTTP, Resumability and Redelivery: the server *may* replay). What is kept is
bounded here, in bytes of the messages' JSON (as a transport sends them; a kept file's text, read from its file
where it is sent, counts :data:`~.streams.PIECES_BYTES`):

- :data:`PER_SESSION` bytes of a session's finished streams,
- :data:`PER_PRINCIPAL` bytes of those of all of one authenticated principal's sessions (without authorization
  every client is the one anonymous caller, and only the process's bound applies),
- :data:`PER_PROCESS` bytes of every session's,

the oldest finished dropped first (the newest is kept whatever its size: the last answer can always be resumed),
and none kept longer than :data:`KEEP_SECONDS` after its end. A dropped stream is forgotten by its session: a
resume naming it is answered as one naming a stream never known (a fresh GET stream), or, with a shared store,
from the stream's log there, which the store bounds the same way (:mod:`~nanohubmcp.state.redis_events`).

Runs on the event loop thread; each step costs O(1) per stream it adds or drops.
"""

from __future__ import annotations

import functools
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from .unfinished_streams import UnfinishedStreams

if TYPE_CHECKING:  # for type checkers only (a Protocol class costs ~0.14 M instructions to make at import)
    from typing import Protocol

    class OutboundStream(Protocol):
        """A finished stream (:class:`~.streams.OutboundStream`): what it keeps for replay."""

        def held_bytes(self) -> int:
            """Bytes of the messages it keeps for replay."""
            ...

    class Session(Protocol):
        """The session a stream is of (:class:`~.sessions.Session`)."""

        id: str
        principal: str | None
        closed: bool

        def drop_stream(self, stream: Any) -> None:
            """Forget a finished stream and what it keeps."""
            ...

MIB = 1024 * 1024
PER_SESSION = 8 * MIB
"""Bytes of one session's finished streams kept (as the shared store keeps of its finished logs)."""
PER_PRINCIPAL = 64 * MIB
"""Bytes of the finished streams of all of one authenticated principal's sessions kept."""
PER_PROCESS = 512 * MIB
"""Bytes of every session's finished streams kept in one process."""
KEEP_SECONDS = 300.0
"""Seconds a finished stream is kept after its end (as the shared store keeps a finished log)."""


class _Held:
    """One finished stream kept: whose, its bytes, when it ended (monotonic seconds)."""

    __slots__ = ("at", "session", "size", "stream")

    def __init__(self, session: Session, stream: OutboundStream, size: int, at: float) -> None:
        self.session = session
        self.stream = stream
        self.size = size
        self.at = at


class _Group:
    """The finished streams of one session, one principal, or the process: oldest first, with their bytes."""

    __slots__ = ("bytes", "held")

    def __init__(self) -> None:
        self.held: OrderedDict[int, _Held] = OrderedDict()
        self.bytes = 0

    def add(self, held: _Held) -> None:
        self.held[id(held.stream)] = held
        self.bytes += held.size

    def discard(self, held: _Held) -> None:
        if self.held.pop(id(held.stream), None) is not None:
            self.bytes -= held.size


class FinishedStreams:
    """The finished streams of a process's sessions, bounded (module docstring).

    Args:
        per_session: bytes of one session's finished streams kept.
        per_principal: bytes of one authenticated principal's kept, across its sessions.
        per_process: bytes of every session's kept.
        keep_seconds: seconds a finished stream is kept at most.
    """

    def __init__(
        self,
        per_session: int = PER_SESSION,
        per_principal: int = PER_PRINCIPAL,
        per_process: int = PER_PROCESS,
        keep_seconds: float = KEEP_SECONDS,
    ) -> None:
        self.per_session = per_session
        self.per_principal = per_principal
        self.per_process = per_process
        self.keep_seconds = keep_seconds
        self._process = _Group()
        self._sessions: dict[str, _Group] = {}
        self._principals: dict[str, _Group] = {}
        self.unfinished = UnfinishedStreams(per_session, per_principal, per_process)
        """The bytes the streams still running keep, bounded alike (:mod:`.unfinished_streams`)."""

    def opened(self, session: Session, stream: Any, *, finishes: bool = True) -> None:
        """``stream`` of ``session`` opened: what it keeps is counted while it runs, then (``finishes``: a POST
        response stream, which ends with its response) once it finished."""
        stream.set_grow_callback(functools.partial(self.unfinished.grew, session))
        if finishes:
            stream.set_done_callback(functools.partial(self._done, session))

    def _done(self, session: Session, stream: Any) -> None:
        self.unfinished.ended(stream)
        self.finished(session, stream)

    @property
    def bytes(self) -> int:
        """Bytes of the finished streams kept now, in all."""
        return self._process.bytes

    def __len__(self) -> int:
        return len(self._process.held)

    def principal_bytes(self, principal: str) -> int:
        """Bytes of the finished streams of ``principal``'s sessions kept now."""
        group = self._principals.get(principal)
        return 0 if group is None else group.bytes

    def finished(self, session: Session, stream: OutboundStream) -> None:
        """``stream`` of ``session`` sent its last message: keep it, then drop the oldest past the bounds."""
        now = time.monotonic()
        self.expire(now)
        try:
            size = stream.held_bytes()
        except (TypeError, ValueError):  # a message no JSON holds: nothing to replay
            session.drop_stream(stream)
            return
        if size == 0 or session.closed:
            return
        held = _Held(session, stream, size, now)
        own = self._sessions.setdefault(session.id, _Group())
        mine = self._principals.setdefault(session.principal, _Group()) if session.principal is not None else None
        for group in (own, mine, self._process):
            if group is not None:
                group.add(held)
        for group, bound in ((own, self.per_session), (mine, self.per_principal), (self._process, self.per_process)):
            while group is not None and group.bytes > bound:
                oldest = next(iter(group.held.values()))
                if oldest is held:
                    break
                self._drop(oldest)

    def expire(self, now: float | None = None) -> int:
        """Drop the streams finished more than ``keep_seconds`` ago; how many."""
        now = time.monotonic() if now is None else now
        dropped = 0
        while self._process.held:
            oldest = next(iter(self._process.held.values()))
            if now - oldest.at <= self.keep_seconds:
                break
            self._drop(oldest)
            dropped += 1
        return dropped

    def forget(self, session: Session, stream: OutboundStream) -> None:
        """``session`` let ``stream`` go itself (it ended, or dropped it): stop counting it."""
        group = self._sessions.get(session.id)
        held = group.held.get(id(stream)) if group is not None else None
        if held is not None:
            self._discard(held)

    def session_ended(self, session: Session) -> None:
        """``session`` ended: stop counting its streams (running ones too)."""
        self.unfinished.session_ended(session)
        group = self._sessions.get(session.id)
        for held in list(group.held.values()) if group is not None else ():
            self._discard(held)

    def _drop(self, held: _Held) -> None:
        self._discard(held)
        held.session.drop_stream(held.stream)

    def _discard(self, held: _Held) -> None:
        self._process.discard(held)
        for groups, key in ((self._sessions, held.session.id), (self._principals, held.session.principal)):
            group = groups.get(key) if key is not None else None
            if group is not None and key is not None:
                group.discard(held)
                if not group.held:
                    del groups[key]
