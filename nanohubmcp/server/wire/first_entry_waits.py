"""Bounds on the waits for a resumed POST stream's first log entry (shared state store only).

A client resuming a POST stream on another process right after a message may find the stream's log still empty:
its producer sent the message before its queued write reached the log. The resume then waits up to
:data:`~.relay_streams.FIRST_ENTRY_MS` for the first entry (:meth:`.relay_streams.RelayStream.kept`). A client can
name any stream in ``Last-Event-ID``; each wait holds a connection and adds a key to the process's one blocking
``XREAD``. So a wait is granted only for a stream id of the form a process mints (``s`` + its 12-hex prefix + a
hex count), to at most :data:`PER_SESSION` resumes of one session at once and :data:`PER_PROCESS` in all; a resume
refused a wait is answered as before waits existed (the log counts as gone: a fresh GET stream).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

PER_SESSION = 4
"""First-entry waits one session may hold at once in one process."""
PER_PROCESS = 64
"""First-entry waits a process holds at once, for all sessions."""

MINTED = re.compile(r"s[0-9a-f]{13,28}")
"""A POST stream id as :meth:`.replication.Replication.post_stream` mints one (a longer or other id names none)."""


class FirstEntryWaits:
    """Counts the waits in progress, by session (one per server process)."""

    __slots__ = ("_by_session", "_total")

    def __init__(self) -> None:
        self._by_session: dict[str, int] = {}  # (at most PER_PROCESS entries: each holds a wait)
        self._total = 0

    @contextmanager
    def granted(self, session_id: str, stream_id: str) -> Iterator[bool]:
        """Whether a resume of ``stream_id`` in ``session_id`` may wait now; held while the block runs."""
        held = self._by_session.get(session_id, 0)
        if MINTED.fullmatch(stream_id) is None or held >= PER_SESSION or self._total >= PER_PROCESS:
            yield False
            return
        self._by_session[session_id] = held + 1
        self._total += 1
        try:
            yield True
        finally:
            self._total -= 1
            left = self._by_session[session_id] - 1
            if left:
                self._by_session[session_id] = left
            else:
                del self._by_session[session_id]
