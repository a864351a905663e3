"""What the streams still running keep for a resume: bounded in bytes per session, principal and process.

A resumable stream keeps the messages it sent (up to :data:`~.streams.DEFAULT_KEEP` of them and
:data:`~.streams.KEEP_BYTES`), so a client whose connection dropped resumes it with ``Last-Event-ID`` and gets
what it missed (MCP 2025-11-25, Basic § Transports § Streamable HTTP, Resumability and Redelivery). While it runs
(a tool sending progress and log messages, a session's GET stream) nothing else bounds them: a session may have 64
such streams and a principal a thousand sessions. So the bytes they keep are bounded together, as the finished
streams' are (:mod:`.finished_streams`, the same bounds):

- :data:`PER_SESSION` bytes of a session's running streams,
- :data:`PER_PRINCIPAL` bytes of those of all of one authenticated principal's sessions,
- :data:`PER_PROCESS` bytes of every session's,

past a bound the oldest kept messages of the group's streams are dropped first (the stream that began first, its
oldest message first; each stream keeps its newest). A resume from before a dropped message is answered as one
naming a stream no longer kept (:meth:`~.streams.OutboundStream.covers`). A stream leaves these counts at its
end (its final message: then the finished streams' bounds hold it), when it closes, and with its session.

Runs on the event loop thread. Does not own what a stream keeps (:mod:`.streams`) nor finished streams.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers only (a Protocol class costs instructions to make at import)
    from typing import Protocol

    class Stream(Protocol):
        """A running stream (:class:`~.streams.OutboundStream`): what it keeps for replay."""

        closed: bool

        @property
        def kept_bytes(self) -> int:
            """Bytes of the messages it keeps for replay now."""
            ...

        def drop_oldest(self) -> int:
            """Drop its oldest kept message but the newest; its bytes (0: none)."""
            ...

    class Session(Protocol):
        """The session a stream is of (:class:`~.sessions.Session`)."""

        id: str
        principal: str | None


MIB = 1024 * 1024
PER_SESSION = 8 * MIB
"""Bytes of one session's running streams kept (as of its finished ones)."""
PER_PRINCIPAL = 64 * MIB
"""Bytes of the running streams of all of one authenticated principal's sessions kept."""
PER_PROCESS = 512 * MIB
"""Bytes of every session's running streams kept in one process."""


class _Counted:
    """One running stream counted: whose, and the bytes last counted of it."""

    __slots__ = ("session", "size", "stream")

    def __init__(self, session: Session, stream: Stream) -> None:
        self.session = session
        self.stream = stream
        self.size = 0


class _Group:
    """The running streams of one session, one principal, or the process: first counted first, with their bytes."""

    __slots__ = ("bytes", "counted")

    def __init__(self) -> None:
        self.counted: OrderedDict[int, _Counted] = OrderedDict()
        self.bytes = 0


class UnfinishedStreams:
    """The bytes the running streams of a process's sessions keep, bounded (module docstring).

    Args:
        per_session: bytes of one session's running streams kept.
        per_principal: bytes of one authenticated principal's kept, across its sessions.
        per_process: bytes of every session's kept.
    """

    def __init__(self, per_session: int = PER_SESSION, per_principal: int = PER_PRINCIPAL,
                 per_process: int = PER_PROCESS) -> None:
        self.per_session = per_session
        self.per_principal = per_principal
        self.per_process = per_process
        self._process = _Group()
        self._sessions: dict[str, _Group] = {}
        self._principals: dict[str, _Group] = {}
        self._all: dict[int, _Counted] = {}

    @property
    def bytes(self) -> int:
        """Bytes the running streams keep now, in all."""
        return self._process.bytes

    def principal_bytes(self, principal: str) -> int:
        """Bytes the running streams of ``principal``'s sessions keep now."""
        group = self._principals.get(principal)
        return 0 if group is None else group.bytes

    def grew(self, session: Session, stream: Stream) -> None:
        """``stream`` of ``session`` kept another message: count it, then drop the oldest kept past the bounds."""
        counted = self._all.get(id(stream))
        if counted is None:
            counted = self._all[id(stream)] = _Counted(session, stream)
            for group in self._groups(session, make=True):
                if group is not None:
                    group.counted[id(stream)] = counted
        self._recount(counted)
        for group, bound in zip(self._groups(session), (self.per_session, self.per_principal, self.per_process),
                                strict=True):
            self._trim(group, bound)

    def ended(self, stream: Any) -> None:
        """``stream`` finished, closed or was dropped: stop counting it."""
        counted = self._all.pop(id(stream), None)
        if counted is None:
            return
        for group in self._groups(counted.session):
            if group is not None:
                group.bytes -= counted.size
                group.counted.pop(id(stream), None)
        self._let_go(counted.session)

    def session_ended(self, session: Session) -> None:
        """``session`` ended: stop counting its streams."""
        group = self._sessions.get(session.id)
        for counted in list(group.counted.values()) if group is not None else ():
            self.ended(counted.stream)

    def _groups(self, session: Session, *, make: bool = False) -> tuple[_Group | None, _Group | None, _Group]:
        """The session's group, its principal's (None without one), the process's; the first two made with
        ``make``."""
        principal = session.principal
        if make:
            return (self._sessions.setdefault(session.id, _Group()),
                    None if principal is None else self._principals.setdefault(principal, _Group()), self._process)
        return (self._sessions.get(session.id), None if principal is None else self._principals.get(principal),
                self._process)

    def _recount(self, counted: _Counted) -> None:
        now = counted.stream.kept_bytes
        change, counted.size = now - counted.size, now
        for group in self._groups(counted.session):
            if group is not None:
                group.bytes += change

    def _trim(self, group: _Group | None, bound: int) -> None:
        """Drop the oldest kept messages of ``group``'s streams until it is within ``bound`` (never a stream's
        newest)."""
        if group is None or group.bytes <= bound:
            return
        for counted in list(group.counted.values()):
            if counted.stream.closed:  # ended without its response (cancelled, its session's end): keeps nothing
                self.ended(counted.stream)
                continue
            while group.bytes > bound and counted.stream.drop_oldest():
                self._recount(counted)
            if group.bytes <= bound:
                return

    def _let_go(self, session: Session) -> None:
        for groups, key in ((self._sessions, session.id), (self._principals, session.principal)):
            group = groups.get(key) if key is not None else None
            if group is not None and key is not None and not group.counted:
                del groups[key]
