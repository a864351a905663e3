"""Outbound message streams: what one SSE stream carries, with event ids for resumability.

An :class:`OutboundStream` is transport-neutral: the server layer ``send``s messages to it and a
transport attaches a *sink* (a function writing one SSE event). While no sink is attached
(the client dropped the connection) messages wait in a bounded buffer; a client that resumes
with ``Last-Event-ID`` gets the messages after that id replayed, then the live ones. A resumable stream keeps its
last :data:`DEFAULT_KEEP` messages, :data:`KEEP_BYTES` of them at most (the newest whatever its size), and its
session's streams in flight are bounded together (:mod:`.unfinished_streams`); a finished stream's messages are
kept within the process's bounds in bytes and time (:mod:`.finished_streams`). A resume past a message dropped so
is refused (:meth:`OutboundStream.covers`): it is answered as one naming a stream no longer kept.

Event ids are ``<stream id>.<sequence>``, unique within a session, so a ``Last-Event-ID`` names
the stream it belongs to (MCP 2025-03-26+, Transports § Resumability and Redelivery).
All methods run on the event loop thread.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from ...protocol import jsonenc
from ...protocol.long_ints import bounded_int

Sink = Callable[[str | None, dict[str, Any]], None]
"""Writes one message as an SSE event: ``sink(event_id, message)``."""

DEFAULT_KEEP = 256
"""Messages kept per stream for replay."""
KEEP_BYTES = 4 * 1024 * 1024
"""Bytes of messages (their JSON, as sent) one stream keeps for replay while it runs; past it the oldest are dropped."""
PIECES_BYTES = 64
"""What a kept file's text in a message counts of a stream's bytes (it stays in its file, read where it is sent)."""


class OutboundStream:
    """One logical SSE stream of a session (a POST response stream, the GET stream, or legacy SSE).

    Args:
        stream_id: short id, unique within the session.
        resumable: give events ids and keep them for replay.
        keep: how many recent messages to keep for replay.
    """

    __slots__ = (
        "_buffer",
        "_dropped",
        "_keep",
        "_kept_bytes",
        "_on_close",
        "_on_done",
        "_on_grow",
        "_on_hangup",
        "_seq",
        "claimed",
        "closed",
        "done",
        "resumable",
        "sink",
        "stream_id",
    )

    def __init__(self, stream_id: str, *, resumable: bool, keep: int = DEFAULT_KEEP) -> None:
        self.stream_id = stream_id
        self.resumable = resumable
        self._seq = 0
        self._keep = keep
        # Created on the first message: most POST streams never carry one (a JSON reply). Each entry: event id,
        # message, its bytes (counted for a resumable stream only: 0 otherwise).
        self._buffer: deque[tuple[str | None, dict[str, Any], int]] | None = None
        self._kept_bytes = 0
        self._dropped = 0
        """The sequence number of the newest message dropped from the buffer (0: none)."""
        self._on_grow: Callable[[OutboundStream], None] | None = None
        self.sink: Sink | None = None
        self.done = False  # the final message (a response) has been sent
        self.closed = False
        self.claimed = False
        """A reader is on its way (a GET awaiting :meth:`prepare`): counts as :attr:`reading`, so a
        second GET arriving meanwhile is refused; set and cleared by the transport."""
        self._on_close: Callable[[], None] | None = None
        self._on_hangup: Callable[[], None] | None = None
        self._on_done: Callable[[OutboundStream], None] | None = None

    def set_done_callback(self, callback: Callable[[OutboundStream], None] | None) -> None:
        """Call ``callback(stream)`` once, just after the final message is sent (the session keeps the
        finished stream within its bounds: :mod:`.finished_streams`); None: nobody."""
        self._on_done = callback

    def set_grow_callback(self, callback: Callable[[OutboundStream], None] | None) -> None:
        """Call ``callback(stream)`` after each message kept for replay (the session bounds its streams' bytes
        together: :mod:`.unfinished_streams`); None: nobody."""
        self._on_grow = callback

    @property
    def kept_bytes(self) -> int:
        """Bytes of the messages a resumable stream keeps for replay now (as :meth:`held_bytes`, counted as each
        came)."""
        return self._kept_bytes

    def drop_oldest(self) -> int:
        """Drop the oldest message kept for replay, never the newest; its bytes (0: nothing to drop). A resume
        from before it is refused from now on (:meth:`covers`)."""
        if not self.resumable or self._buffer is None or len(self._buffer) < 2:
            return 0
        event_id, _, size = self._buffer.popleft()
        self._dropped = seq_of(event_id) or self._dropped
        self._kept_bytes -= size
        return size

    def covers(self, last_event_id: str) -> bool:
        """Whether every message after ``last_event_id`` is still kept (none was dropped past it), so a resume from
        it misses nothing (while nothing was dropped, any id: one of another form is replayed as it was before, and a
        relay stream's ids are its log's, not this buffer's)."""
        if not self._dropped:
            return True
        seq = seq_of(last_event_id)
        return seq is not None and seq >= self._dropped

    def held_bytes(self) -> int:
        """Bytes of the messages kept for replay, as JSON sent (a kept file's text, which stays in its file,
        counts :data:`PIECES_BYTES`); 0 when none are. A resumable stream's were counted as each came
        (:attr:`kept_bytes`: a message no JSON holds is not kept), so only another's are measured now.

        Raises:
            TypeError, ValueError: a message JSON cannot hold (as ``jsonenc.dumps``).
        """
        if self.resumable:
            return self._kept_bytes
        return sum(_bytes_of(message) for _, message, _ in self._buffer or ())

    def release(self) -> None:
        """Forget the messages kept for replay (the stream was dropped from its session's finished ones)."""
        self._buffer = None
        self._kept_bytes = 0

    def set_close_callback(self, callback: Callable[[], None] | None) -> None:
        """Call ``callback`` once when the stream ends for good (:meth:`close`); None: nobody."""
        self._on_close = callback

    def set_hangup_callback(self, callback: Callable[[], None] | None) -> None:
        """Call ``callback`` once on :meth:`hangup` (the transport ends its HTTP response then)."""
        self._on_hangup = callback

    def drop_hangup_callback(self, callback: Callable[[], None]) -> None:
        """Forget ``callback`` as the hangup callback if it still is (its reader ended; another's stays)."""
        if self._on_hangup is callback:
            self._on_hangup = None

    @property
    def reading(self) -> bool:
        """True while a client's connection reads this stream, or one has claimed it."""
        return self.claimed or self.sink is not None

    async def prepare(self) -> None:
        """Get ready for a reader (a stream kept elsewhere learns where it ends); nothing here."""

    async def kept(self) -> bool:
        """Whether the stream still has something to resume (here: it is held, so yes)."""
        return True

    def next_id(self) -> str | None:
        """Reserve the next event id (None when the stream is not resumable)."""
        if not self.resumable:
            return None
        self._seq += 1
        return f"{self.stream_id}.{self._seq}"

    def send(self, message: dict[str, Any], *, final: bool = False) -> None:
        """Deliver ``message`` now, or keep it until a client reattaches."""
        if self.closed:
            return
        event_id = self.next_id()
        if self.resumable:
            self._keep_for_replay(event_id, message)
        elif self.sink is None:
            if self._buffer is None:
                self._buffer = deque(maxlen=self._keep)
            self._buffer.append((event_id, message, 0))
        if final:
            self.done = True
        if self.sink is not None:
            self.sink(event_id, message)
        if final and self._on_done is not None:
            callback, self._on_done = self._on_done, None
            callback(self)

    def _keep_for_replay(self, event_id: str | None, message: dict[str, Any]) -> None:
        try:
            size = _bytes_of(message)
        except (TypeError, ValueError):  # a message no JSON holds (its sink fails it): nothing to replay
            return
        if self._buffer is None:
            self._buffer = deque()
        self._buffer.append((event_id, message, size))
        self._kept_bytes += size
        while len(self._buffer) > self._keep or self._kept_bytes > KEEP_BYTES:
            if not self.drop_oldest():
                break
        if self._on_grow is not None:
            self._on_grow(self)

    def attach(self, sink: Sink, last_event_id: str | None = None) -> None:
        """Attach a writer; replay what came after ``last_event_id`` (or everything undelivered)."""
        self.sink = sink
        if last_event_id is not None:
            replay = self._after(last_event_id)
        elif not self.resumable:
            replay = [(event_id, message) for event_id, message, _ in self._buffer or ()]
            self._buffer = None
        else:
            replay = []
        for event_id, message in replay:
            sink(event_id, message)

    def _after(self, last_event_id: str) -> list[tuple[str | None, dict[str, Any]]]:
        seq = seq_of(last_event_id)
        if seq is None:
            return []
        return [(event_id, message) for event_id, message, _ in self._buffer or ()
                if event_id is not None and int(event_id.rsplit(".", 1)[1]) > seq]

    def hangup(self) -> bool:
        """End the current HTTP response but keep the stream for a resuming GET (SEP-1699); a GET
        resuming a stream another connection still reads ends that one so.

        Returns False when the stream cannot be resumed (no event ids) or has no connection.
        """
        if not self.resumable or self._on_hangup is None or self.done:
            return False
        callback, self._on_hangup = self._on_hangup, None
        callback()
        return True

    def detach(self, sink: Sink | None = None) -> None:
        """Forget the writer (the connection closed); messages are buffered from now on."""
        # ``==``, not ``is``: a bound method (``channel._sink``) is a new object at each access.
        if sink is None or self.sink == sink:
            self.sink = None

    def close(self) -> None:
        """End the stream for good; the close callback (the transport's) finishes the HTTP response."""
        if self.closed:
            return
        self.closed = True
        self.sink = None
        self._buffer = None
        self._kept_bytes = 0
        self._on_done = None
        self._on_grow = None
        if self._on_close is not None:
            callback, self._on_close = self._on_close, None
            callback()


def seq_of(event_id: str | None) -> int | None:
    """The sequence number of an event id (``<stream>.<n>``); None for none or another form."""
    try:
        return bounded_int(event_id.rsplit(".", 1)[1]) if event_id else None  # (a client's header: 4,300 digits)
    except (IndexError, ValueError):
        return None


def _bytes_of(message: dict[str, Any]) -> int:
    """Bytes of ``message``'s JSON as sent (a kept file's text, which stays in its file, counts :data:`PIECES_BYTES`).

    Raises:
        TypeError, ValueError: a message JSON cannot hold (as ``jsonenc.dumps``).
    """
    return sum(len(part) if isinstance(part, bytes) else PIECES_BYTES for part in jsonenc.dumpb_parts(message))
