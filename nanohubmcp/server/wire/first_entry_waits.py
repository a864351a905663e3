"""Bounds on the waits for a resumed POST stream's first log entry (shared state store only).

A client resuming a POST stream on another process right after a message may find the stream's log still empty:
its producer sent the message before its queued write reached the log. The resume then waits up to
:data:`~.relay_streams.FIRST_ENTRY_MS` for the first entry (:meth:`.relay_streams.RelayStream.kept`). A client can
name any stream in ``Last-Event-ID``; each wait holds a connection and adds a key to the process's one blocking
``XREAD``. So a wait is granted only for a stream id of the form a process mints (``s`` + its 12-hex prefix + a
hex count), to at most :data:`PER_SESSION` resumes of one session at once, :data:`PER_PRINCIPAL` of one
authenticated principal's sessions, and :data:`PER_PROCESS` in all; a resume refused a wait is answered as before
waits existed (the log counts as gone: a fresh GET stream).

The per-principal bound keeps one principal's sessions (a principal may hold many) from taking every wait of a
process while another principal's resume needs one. Sessions of no principal (a server without authorization,
where any client may open any number of sessions anyway) are bounded per session and per process only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

PER_SESSION = 4
"""First-entry waits one session may hold at once in one process."""
PER_PRINCIPAL = 8
"""First-entry waits the sessions of one authenticated principal may hold at once in one process."""
PER_PROCESS = 64
"""First-entry waits a process holds at once, for all sessions."""

MINTED = re.compile(r"s[0-9a-f]{13,28}")
"""A POST stream id as :meth:`.replication.Replication.post_stream` mints one (a longer or other id names none)."""


def _take(counts: dict[str, int], name: str) -> None:
    counts[name] = counts.get(name, 0) + 1


def _give_back(counts: dict[str, int], name: str) -> None:
    left = counts[name] - 1
    if left:
        counts[name] = left
    else:
        del counts[name]


class FirstEntryWaits:
    """Counts the waits in progress, by session and by principal (one per server process)."""

    __slots__ = ("_by_principal", "_by_session", "_total")

    def __init__(self) -> None:
        # (at most PER_PROCESS entries each: each holds a wait)
        self._by_session: dict[str, int] = {}
        self._by_principal: dict[str, int] = {}
        self._total = 0

    @contextmanager
    def granted(self, session_id: str, stream_id: str, principal: str | None = None) -> Iterator[bool]:
        """Whether a resume of ``stream_id`` in ``session_id`` (opened by ``principal``, None: no authorization) may
        wait now; held while the block runs."""
        if (
            MINTED.fullmatch(stream_id) is None
            or self._by_session.get(session_id, 0) >= PER_SESSION
            or (principal is not None and self._by_principal.get(principal, 0) >= PER_PRINCIPAL)
            or self._total >= PER_PROCESS
        ):
            yield False
            return
        _take(self._by_session, session_id)
        if principal is not None:
            _take(self._by_principal, principal)
        self._total += 1
        try:
            yield True
        finally:
            self._total -= 1
            _give_back(self._by_session, session_id)
            if principal is not None:
                _give_back(self._by_principal, principal)
