"""Streams whose messages cross processes through the shared state store's event logs.

With a shared store (``state_url="redis://…"``) a session's streams are written to its event
logs, so any process can serve them:

- :class:`MirroredStream`, a POST response stream: delivered at once by the process serving
  the request (as :class:`~nanohubmcp.server.wire.streams.OutboundStream`) and written to its log,
  so a client whose connection dropped resumes it with ``Last-Event-ID`` on any process;
- :class:`RelayStream`, a stream read from the log: the session's stream of unrelated
  messages (GET ``/mcp``, legacy SSE), which every process writes to and the process holding
  the client's connection reads from; or a POST stream resumed on another process. Its event
  ids are the log's entry ids (``g.<entry id>``), one order for all writers. While it reads the
  session's unrelated-message stream, the store knows it (``SharedState.reader_started``), so another
  process writes there what has no stream of its own only when someone reads it. When the
  process that produced a resumed POST stream died before its response, the reader answers
  the request with an error saying so, so the client is never left waiting. A resume finding a POST stream's log
  still empty waits a moment for its first entry (:meth:`RelayStream.kept`): its producer writes each message to the
  log just after sending it to its client, who may resume on another process in between.

A log may hold an entry twice (a write that timed out against a frozen Redis reached it, and the
writer tried it again): a reader delivers an entry only when its number is above the last it delivered
(a POST stream's: at first, the client's ``Last-Event-ID``; a resumed GET stream's: at first, the highest of each
writer in the log up to the client's ``Last-Event-ID``), so a copy never reaches the client, across a reconnect
too (:mod:`~nanohubmcp.server.wire.delivered`).

A reader reads the log after a position (an entry id), never "whatever comes next" (``XREAD $``),
which would skip what other processes wrote while it was not waiting in a read: before its first
read (a legacy SSE stream learns the position before its ``endpoint`` event), and between reads.

Source: MCP 2025-11-25, Basic § Transports § Streamable HTTP (resumability and redelivery).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from typing import TYPE_CHECKING, Any

from ...errors import InternalError, error_response
from ...protocol import jsonenc
from ...protocol.lone_surrogates import utf8_storable
from ...protocol.long_ints import bounded_int
from ...state.errors import StateUnavailable
from .delivered import Delivered
from .first_entry_waits import FirstEntryWaits
from .streams import OutboundStream, Sink, seq_of

if TYPE_CHECKING:
    from ...state.base import SharedState

log = logging.getLogger("nanohubmcp.state")

BLOCK_MS = 2_000
"""How long one read of a log waits for new entries."""
SESSION_CHECKS = 3
"""Reads' worth of time (``SESSION_CHECKS * BLOCK_MS``) between checks that the session behind an
unrelated-message stream lives, each of which also refreshes the store's note that it is read: on a
quiet stream and on a busy one alike."""
DEAD_OWNER_CHECKS = 2
"""Quiet reads of a resumed POST stream before its producer's heartbeat is checked."""
FIRST_ENTRY_MS = 5_000
"""How long a resume of a POST stream whose log is still empty waits for the log's first entry before taking the
log for dropped. The producing process sends a message to its client before its queued write of that message reaches
the log (milliseconds later; more on a loaded host), so a client resuming at once on another process may look at the
log before it holds anything."""
PRODUCER_DIED = "the server process serving this request stopped before it answered; send the request again"


def logged(message: dict[str, Any]) -> str:
    """``message`` as the JSON text a log entry holds: written by the one encoder, so a pre-encoded array
    and a kept file's text (:class:`~nanohubmcp.protocol.text_pieces.TextPieces`, read whole here) are their
    values (the standard encoder refused both), a lone surrogate as its ``\\u`` escape (UTF-8 has no form)."""
    return utf8_storable(jsonenc.dumps(message))


def _log_position(position: str) -> bool:
    """Whether a ``Last-Event-ID``'s part after the stream id is an entry id Redis takes (``<ms>-<seq>``, each at most
    2**64 - 1). Another (``abc-def``; a client's header) is read as any position that is no entry id: a POST
    stream's whole log, a GET stream's too (before, ``XREAD`` refused it and the stream stayed open, never fed)."""
    ms, dash, seq = position.partition("-")
    return bool(dash) and all(part.isascii() and part.isdigit() and len(part) <= 20 and int(part) < 2**64
                              for part in (ms, seq))


def _entry_key(entry_id: str) -> tuple[int, int]:
    """An entry id (``<ms>-<seq>``, as :func:`_log_position` takes it) as the pair Redis orders the log by."""
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq)


def _noop_sink(event_id: str | None, message: dict[str, Any]) -> None:
    """Marks a relay stream as deliverable: its messages go to the log, read by whoever holds it."""


class MirroredStream(OutboundStream):
    """A POST response stream that also writes each message to the session's event log."""

    __slots__ = ("principal", "request_id", "session_key", "state")

    def __init__(
        self, stream_id: str, *, state: SharedState, session_key: str, request_id: str | int | None, resumable: bool,
        principal: str | None = None,
    ) -> None:
        super().__init__(stream_id, resumable=resumable)
        self.state = state
        self.session_key = session_key
        self.request_id = request_id
        self.principal = principal
        """The keyed digest of the subject whose session it is (the store bounds its finished logs together:
        :mod:`nanohubmcp.state.principal_digest`), or None."""

    def send(self, message: dict[str, Any], *, final: bool = False) -> None:
        if self.closed:
            return
        if self.resumable:
            # The id this message will carry: reserved by the base class's send just below.
            event_id = f"{self.stream_id}.{self._seq + 1}"
            self.state.append(
                self.session_key,
                self.stream_id,
                {
                    "m": logged(message),
                    "f": "1" if final else "0",
                    "e": event_id,
                    "o": self.state.process,
                    "r": json.dumps(self.request_id),
                },
                self.principal,
            )
        super().send(message, final=final)


class RelayStream(OutboundStream):
    """A stream read from the session's event log (see the module docstring)."""

    __slots__ = ("_cursor", "_delivered", "_first_entry", "_oldest", "_principal", "_reader", "_reader_sink",
                 "session_key", "state")

    def __init__(self, stream_id: str, *, state: SharedState, session_key: str, resumable: bool,
                 first_entry: FirstEntryWaits | None = None, principal: str | None = None) -> None:
        super().__init__(stream_id, resumable=resumable)
        self.state = state
        self._first_entry = first_entry
        """The process's bounds on first-entry waits (:meth:`kept`); None: never waited on."""
        self._principal = principal
        """The principal of the session (its share of first-entry waits); None: no authorization."""
        self.session_key = session_key
        self.sink = _noop_sink
        self._cursor = "$"
        self._delivered: Delivered | None = None
        """What the last reader delivered, for a standalone stream's next reader continuing from its position."""
        self._reader: asyncio.Task[None] | None = None
        self._reader_sink: Sink | None = None
        self._oldest = 0
        """The sequence number of the oldest message a POST stream's log holds, as :meth:`kept` read it (0: not read,
        or an entry naming none)."""

    @property
    def standalone(self) -> bool:
        return self.stream_id == "g"

    @property
    def reading(self) -> bool:
        """True while a client's connection in this process reads the stream, or one has claimed it."""
        return self.claimed or (self._reader is not None and not self._reader.done())

    async def prepare(self) -> None:
        """Learn where the log ends, so a fresh reader's priming id covers what follows and its
        first read, however late it comes, gets every message written from now on (call it
        before a client can write to the log: legacy SSE, before the ``endpoint`` event)."""
        if self.standalone:
            self._cursor = await self.state.last_id(self.session_key, self.stream_id)

    async def kept(self) -> bool:
        """Whether the log of a POST stream holds anything: one deleted to keep its session's finished logs in
        bounds, or expired, is gone, as a stream a single process dropped (the standalone stream always is). A log
        whose oldest messages were deleted to keep it in its bytes' bound (``nanohubmcp.state.redis_event_bounds``)
        covers only a resume from after them (:meth:`covers`), as a stream one process keeps. An
        empty log may also be one not yet written (its producer sent the client a message and has yet to write it):
        its first entry is waited for, up to :data:`FIRST_ENTRY_MS`, before the log counts as gone, within the
        process's bounds (:mod:`.first_entry_waits`: a minted stream id, a few waits a session and a principal).

        .. versionchanged:: 1.0
           An empty log is waited on before it counts as gone (before, a client resuming at once after a message
           on another process could be given a fresh GET stream, and never got the rest of its request's stream).

        Raises:
            StateUnavailable: the store cannot be reached.
        """
        if self.standalone:
            return True
        first = await self.state.first_event(self.session_key, self.stream_id)
        if first is not None:
            self._oldest = seq_of(first) or 0
            return True
        if self._first_entry is None:
            return False
        with self._first_entry.granted(self.session_key, self.stream_id, self._principal) as waits:
            # A blocking read from the log's start: it returns as soon as the producer's first write lands.
            return waits and bool(await self.state.read(self.session_key, self.stream_id, "0-0", FIRST_ENTRY_MS))

    def covers(self, last_event_id: str) -> bool:
        """Whether a resume from ``last_event_id`` misses nothing the log no longer holds: the client got every message
        before its oldest (:meth:`kept` read it; an id of another form: replayed whole, as before)."""
        seq = seq_of(last_event_id)
        return seq is None or seq + 1 >= self._oldest

    def next_id(self) -> str | None:
        if not self.resumable:
            return None
        return f"{self.stream_id}.{self._cursor}" if self._cursor != "$" else None

    def send(self, message: dict[str, Any], *, final: bool = False) -> None:
        if self.closed:
            return
        self.state.append(
            self.session_key,
            self.stream_id,
            {"m": logged(message), "f": "1" if final else "0", "o": self.state.process},
        )

    def attach(self, sink: Sink, last_event_id: str | None = None) -> None:
        after_seq = 0
        given: str | None = None  # the client's log position (an entry id), checked against the log's end first
        if last_event_id is not None:
            position = last_event_id.split(".", 1)[1] if "." in last_event_id else ""
            if _log_position(position):
                self._cursor = position
                given = position
            else:
                with contextlib.suppress(ValueError):
                    after_seq = bounded_int(position)  # (a client's header: 4,300 digits at most)
                self._cursor = "0-0"
        elif not self.standalone:
            self._cursor = "0-0"
        if last_event_id is not None or not self.standalone:
            self._delivered = None  # (else a standalone reader goes on from the last one's position and record)
        self.detach()
        self._reader = asyncio.get_running_loop().create_task(self._read(sink, after_seq, given))
        self._reader_sink = sink

    def detach(self, sink: Sink | None = None) -> None:
        # ``==``: a bound method is a new object at each access. Another reader's sink: that one stays.
        if sink is not None and self._reader_sink != sink:
            return
        reader, self._reader, self._reader_sink = self._reader, None, None
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()

    def close(self) -> None:
        self.detach()
        super().close()

    async def _read(self, sink: Sink, after_seq: int, given: str | None) -> None:
        mark = _ReaderMark(self.state, self.session_key)
        try:
            if self.standalone:
                with contextlib.suppress(StateUnavailable):
                    await self.state.add_listener(self.session_key)
                    await mark.made()
            await self._read_log(sink, after_seq, mark, given)
        finally:
            mark.drop()

    async def _read_log(self, sink: Sink, after_seq: int, mark: _ReaderMark, given: str | None) -> None:
        """Deliver the log's entries after the cursor until the stream ends; ``given``: the entry id of the
        client's ``Last-Event-ID``. One past the log's newest entry (another deployment's id, a made-up one) is
        no position of this log: read as one that is no entry id (the whole log; before, the reader waited
        after it, every entry written had a lower id, and the client's stream was never fed). Else a standalone
        stream's log up to it tells what the client has of each writer."""
        quiet = dead = 0
        loop = asyncio.get_running_loop()
        every = SESSION_CHECKS * BLOCK_MS / 1000
        next_check = loop.time() + every
        owner: str | None = None
        request_id: str | int | None = None
        if self._delivered is None:
            self._delivered = Delivered(after_seq)
        delivered = self._delivered
        while not self.closed:
            if self.standalone and loop.time() >= next_check:  # by the clock: a busy stream is checked too
                next_check = loop.time() + every
                if not await self._session_lives(mark):
                    self._closed_elsewhere()  # deleted, expired, or lost with the store: end the stream
                    return
            try:
                if self._cursor == "$":  # read from a position, never "$": what is written between reads stays
                    self._cursor = await self.state.last_id(self.session_key, self.stream_id)
                if given is not None:
                    if _entry_key(given) > _entry_key(await self.state.last_id(self.session_key, self.stream_id)):
                        self._cursor = "0-0"
                    elif self.standalone:  # a copy after it of what the client got before it is skipped too
                        delivered.knows(await self.state.numbers_upto(self.session_key, self.stream_id, given))
                    given = None
                entries = await self.state.read(self.session_key, self.stream_id, self._cursor, BLOCK_MS)
            except StateUnavailable:
                await asyncio.sleep(BLOCK_MS / 1000)
                continue
            if not entries:
                quiet += 1
                if self.standalone:
                    continue
                if quiet >= DEAD_OWNER_CHECKS and await self._producer_died(owner):
                    dead += 1
                    if dead >= DEAD_OWNER_CHECKS:  # seen gone twice in a row, a read apart
                        self._end_for_dead_producer(sink, request_id, delivered.seq, owner)
                        return
                else:
                    dead = 0
                continue
            quiet = 0
            for entry_id, fields in entries:
                self._cursor = entry_id
                if fields.get("x") == "1":
                    self._closed_elsewhere()
                    return
                owner = fields.get("o", owner)
                if "r" in fields:
                    request_id = json.loads(fields["r"])
                event_id = fields.get("e") or f"{self.stream_id}.{entry_id}"
                if not delivered.new(fields, None if self.standalone else int(event_id.rsplit(".", 1)[1])):
                    continue  # before the client's Last-Event-ID, or a copy of one delivered (delivered.py)
                final = fields.get("f") == "1"
                if final:
                    self.done = True
                sink(event_id if self.resumable else None, json.loads(fields["m"]))
                if final:
                    return

    async def _session_lives(self, mark: _ReaderMark) -> bool:
        """Whether the session still exists (its idle clock restarts: an open stream keeps it), and
        keep it among the listeners of unrelated messages."""
        try:
            if await self.state.load_session(self.session_key) is None:
                return False
            self.state.used_session(self.session_key)
            await self.state.add_listener(self.session_key)
            await mark.made()  # (not yet when the store was away as the reader started)
        except StateUnavailable:
            pass  # cannot tell now: keep reading
        return True

    async def _producer_died(self, owner: str | None) -> bool:
        try:
            return owner is None or not await self.state.alive(owner)
        except StateUnavailable:
            return False

    def _end_for_dead_producer(
        self, sink: Sink, request_id: str | int | None, last_seq: int, owner: str | None
    ) -> None:
        log.warning(
            "stream %s of a session: its producing process %s is gone; answering its request with an error",
            self.stream_id,
            owner,
        )
        self.done = True
        if request_id is not None:
            sink(
                f"{self.stream_id}.{last_seq + 1}",
                error_response(InternalError(PRODUCER_DIED), request_id),
            )
        else:
            self._closed_elsewhere()

    def _closed_elsewhere(self) -> None:
        callback, self._on_close = self._on_close, None
        self.closed = True
        if callback is not None:
            callback()


class _ReaderMark:
    """One reader of a session's unrelated-message stream, as the store knows it while it reads (so a
    message for a request with no stream of its own, on any process, is written for it to read)."""

    __slots__ = ("name", "session_key", "state")

    def __init__(self, state: SharedState, session_key: str) -> None:
        self.state = state
        self.session_key = session_key
        self.name: str | None = None

    async def made(self) -> None:
        """Tell the store (once)."""
        if self.name is None:
            # Named before the store is told: a reader cancelled meanwhile still takes its name back.
            self.name = secrets.token_hex(4)
            await self.state.reader_started(self.session_key, self.name)

    def drop(self) -> None:
        """The reader ended: the store forgets it (queued)."""
        name, self.name = self.name, None
        if name is not None:
            self.state.reader_ended(self.session_key, name)
