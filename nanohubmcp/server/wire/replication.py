"""Sessions shared by the processes of one server, through a shared state store (Redis).

With ``state_url="redis://…"`` every process of a server serves every session: a session's
record (principal, negotiated version, client capabilities and info, log level,
subscriptions) lives in the store, and the process a request lands on holds a replica of it
for as long as it is used there. :class:`Replication` keeps the replicas in step:

- a request naming a session loads its record (restarting its idle clock): a session opened
  by another process is adopted, one deleted or expired elsewhere (or lost with a Redis
  restart) is forgotten here too and answered 404. The store may answer from this process's
  copy of the record (Redis: :mod:`nanohubmcp.state.redis_sessions`, kept right by
  invalidations), so most requests cost no round trip;
- what a request changed in its session is stored before its response leaves (and every other
  process's copy dropped);
- streams cross processes (:mod:`.relay_streams`); server→client requests are answered on any
  process: the answer is relayed to the process waiting for it (Redis pub/sub);
- a message related to a request with no stream of its own (a task's progress, log messages and
  questions, once its ``tools/call`` was answered) goes to the session's GET stream whichever process
  holds it: written to that stream's log while the store knows a reader of it (:meth:`Replication.unrelated`);
- change notifications and resource updates reach the streams of every process's sessions;
- a client's ``notifications/cancelled`` reaches the process running the request it names; one that
  arrives before the request started there (its POST still on its way, or held) is kept
  a minute in this process and the request, once it starts, ends cancelled at once
  (:meth:`Replication.cancelled_before`, :mod:`.early_cancels`: a lookup in memory, no round trip).

The store names a session by its key (:attr:`.sessions.Session.key`, the SHA-256 of its id), never its id: without
authorization an id is the session's credential, and a store with persistence writes what it holds to disk. A
process learns the id from the request naming it. Likewise the store holds a principal only as the keyed digest of
its subject (:mod:`nanohubmcp.state.principal_digest`): a record's ``principal_digest``, and the per-principal
counts; a process learns the subject from the request, whose digest must match the record's to adopt the session.
A record stored before digests were kept (it names its ``principal`` in clear) is taken for gone: 404, the client
initializes again.

Source: MCP 2025-11-25, Basic § Transports § Session Management, Resumability and Redelivery.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import logging
import secrets
from collections import deque
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from ...protocol import jsonrpc
from ...protocol.seconds import MOST_WAIT_SECONDS
from ...protocol.uris import comparison_form
from ...state.errors import StateBusy, StateUnavailable, spawn_cleanup, spawn_tolerant
from ...state.principal_digest import PrincipalDigest
from .early_cancels import EarlyCancels
from .first_entry_waits import FirstEntryWaits
from .relay_streams import MirroredStream, RelayStream
from .sessions import session_key

if TYPE_CHECKING:
    from ...state.base import SharedState
    from .sessions import Session, SessionStore
    from .streams import OutboundStream

log = logging.getLogger("nanohubmcp.state")

MAX_ENDED = 1000
"""Principals whose sessions ended here are remembered until their next session is stored, at most."""
MAX_REASON = 1000
"""Characters of a client's cancellation reason passed on to another process."""
MAX_WAITING = 256
"""Messages of one session waiting for the look at its stream's readers; past it the oldest are dropped."""
SAVED = "_shared_record"
CANCELLED = "cancelled by the client"
"""Attribute of a replica holding the record last stored or loaded (to store only changes)."""


def record_of(session: Session, digest: PrincipalDigest) -> dict[str, Any]:
    """The fields of ``session`` every process must agree on (its principal as ``digest`` of its subject)."""
    return {
        "key": session.key,
        "version": session.version,
        "transport": session.transport,
        "principal_digest": digest.of(session.principal),
        "capabilities": session.client_capabilities,
        "client": session.client_info,
        "initialized": session.initialized,
        "log_level": session.log_level,
        "subscriptions": sorted(session.subscriptions.values()),  # as the client sent them
    }


class Replication:
    """Keeps one process's sessions in step with the shared store (module docstring)."""

    def __init__(self, sessions: SessionStore, state: SharedState, digest: PrincipalDigest) -> None:
        self.sessions = sessions
        self.state = state
        self.digest = digest
        """What the store keeps of a principal (the keyed digest of its subject)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._ended: dict[str, list[str]] = {}
        """By principal: sessions ended here since its last new session was stored (so the store's
        count of the principal's sessions drops them before it counts the new one)."""
        self._waiting: dict[str, deque[dict[str, Any]]] = {}
        """By session: messages for its unrelated-message stream, until its readers were looked at."""
        self._stream_prefix = secrets.token_hex(6)
        self._first_entry = FirstEntryWaits()
        self._streams = itertools.count(1)
        self._early = EarlyCancels()
        state.answers_to(self._answered)
        state.cancels_to(self._cancelled)
        sessions.use_relay(self)

    # -- sessions ----------------------------------------------------------------------------
    def held(self, session_id: str) -> Session | None:
        """The session ``session_id`` names when this process's copy of its record may be used
        now and the replica is in step with it (no round trip, no change to apply); None: call
        :meth:`lookup`."""
        session = self.sessions.get(session_id)
        if session is None:
            return None
        record = self.state.held_session(session.key)
        return session if record is not None and getattr(session, SAVED, None) is record else None

    async def lookup(self, session_id: str, subject: str | None) -> Session | None:
        """The session ``session_id`` names, held here; None when the store has no such session, or (not held
        here) when it is not the session of the request's principal ``subject`` (None: no authorization): the
        record's digest of its principal is compared with ``subject``'s, and another's session is not adopted.

        Raises:
            StateUnavailable: the store cannot be reached (503).
        """
        session = self.sessions.get(session_id)
        key = session_key(session_id) if session is None else session.key
        record = self.state.held_session(key)
        if record is not None:  # this process's copy of the record: no round trip
            if session is not None and getattr(session, SAVED, None) is record:
                return session  # and the replica is in step with it
        else:
            record = await self.state.load_session(key)
        if record is not None and record.get("principal") is not None:
            record = None  # stored before digests were kept: its principal in clear (initialize again)
        if record is None:
            if self.sessions.get(session_id) is not None:
                self.sessions.remove(session_id)  # ended elsewhere, expired, or lost with the store
            return None
        session = self.sessions.get(session_id)
        if session is None:
            if not self.digest.matches(record.get("principal_digest"), subject):
                return None  # another's session (answered as one that does not exist), not adopted
            session = self.sessions.adopt(
                session_id,
                str(record.get("version")),
                transport=str(record.get("transport")),
                principal=subject,
            )
        saved = getattr(session, SAVED, None)
        if saved is not record and saved != record:  # the same object: the store's cached copy
            self._apply(session, record)
        return session

    def used(self, session: Session) -> None:
        """A request of ``session``'s principal used it: its idle clock restarts in the store (soon, with the other
        sessions used meanwhile). Called once the request's principal is known to be the session's: a request of
        another naming the session keeps it alive no longer."""
        self.state.used_session(session.key)

    @staticmethod
    def _apply(session: Session, record: dict[str, Any]) -> None:
        session.client_capabilities = dict(record.get("capabilities") or {})
        session.client_info = dict(record.get("client") or {})
        session.initialized = bool(record.get("initialized"))
        session.log_level = record.get("log_level")
        session.subscriptions = {comparison_form(uri): uri for uri in record.get("subscriptions") or ()}
        setattr(session, SAVED, record)

    @staticmethod
    def changed(session: Session) -> bool:
        """Whether ``session`` differs from the record last stored or loaded (:func:`record_of`'s
        fields; ``id``, ``transport`` and ``principal`` never change), so :meth:`save` has work."""
        if session.closed:
            return False
        saved = getattr(session, SAVED, None)
        return (
            saved is None
            or saved["log_level"] != session.log_level
            or saved["initialized"] != session.initialized
            or saved["version"] != session.version
            or saved["capabilities"] != session.client_capabilities
            or saved["client"] != session.client_info
            or ((bool(saved["subscriptions"]) or bool(session.subscriptions))
            and saved["subscriptions"] != sorted(session.subscriptions.values()))
        )

    async def save(self, session: Session) -> None:
        """Store what changed in ``session`` (nothing when nothing did).

        Raises:
            StateUnavailable: the store cannot be reached.
        """
        if not self.changed(session):
            return
        record = record_of(session, self.digest)
        before = getattr(session, SAVED, None)
        old = set(before["subscriptions"]) if before else set()
        new = set(record["subscriptions"])
        principal = session.principal
        if before is None and principal is not None:  # new: counted among its principal's, everywhere
            opened = (self.digest(principal), self.sessions.max_per_principal, self._ended.pop(principal, []))
            past_cap = await self.state.save_session(record, new - old, old - new, opened=opened)
            for key in past_cap:
                spawn_cleanup(self._tasks, functools.partial(self._end_past_cap, key, principal))
        else:
            await self.state.save_session(record, new - old, old - new)
        setattr(session, SAVED, record)

    async def _end_past_cap(self, key: str, principal: str) -> None:
        """End the session of ``key`` of ``principal`` that a new one put past its cap (it may be on any process)."""
        session = self._by_key(key)
        if session is not None:
            self.sessions.remove(session.id)
        record = await self.state.load_session(key)
        subscriptions = set(record.get("subscriptions") or ()) if record is not None else set()
        await self.state.delete_session(key, subscriptions, self.digest(principal))

    def _by_key(self, key: str) -> Session | None:
        """The session of ``key`` held here (what the store names: a look through this process's sessions, made
        for a session another process acts on: one past its cap, an answer or a cancel relayed)."""
        return next((session for session in self.sessions.all() if session.key == key), None)

    def ended(self, session: Session) -> None:
        """``session`` was ended here (a closed legacy stream, an eviction): end it everywhere, soon."""
        if session.principal is not None:
            if len(self._ended) >= MAX_ENDED and session.principal not in self._ended:
                self._ended.clear()
            ended = self._ended.setdefault(session.principal, [])
            ended.append(session.key)
            del ended[:-MAX_ENDED]
        self._delete_soon(session)

    def _delete_soon(self, session: Session) -> None:
        """Delete ``session``'s record in the background, waiting for a connection however busy the pool."""
        subscriptions = set(session.subscriptions.values())
        delete = functools.partial(self.state.delete_session, session.key, subscriptions,
                                   self.digest.of(session.principal))
        spawn_cleanup(self._tasks, delete)

    async def end(self, session: Session) -> None:
        """``session`` is ended here (DELETE): end it everywhere, and return once every other
        process holding it has let it go (its next request there is answered 404). With every
        pooled connection in use it returns at once, the delete done once one is free."""
        try:
            await self.state.delete_session(session.key, set(session.subscriptions.values()),
                                            self.digest.of(session.principal))
        except StateBusy:  # no connection free now: ended here, and everywhere once one is
            self._delete_soon(session)
        except StateUnavailable:  # its record expires with its idle clock
            log.warning("session %s ended here only: the state store is unreachable", session.key[:12])

    # -- streams -----------------------------------------------------------------------------
    def post_stream(self, session: Session, request_id: str | int | None) -> OutboundStream:
        # Unique among every process's streams of the session: this process's random prefix, a count.
        return MirroredStream(
            f"s{self._stream_prefix}{next(self._streams):x}",
            state=self.state,
            session_key=session.key,
            request_id=request_id,
            resumable=session.resumable,
            principal=self.digest.of(session.principal),
        )

    def standalone(self, session: Session) -> OutboundStream:
        # Legacy SSE carries the responses themselves there: relayed, whatever the version.
        return RelayStream("g", state=self.state, session_key=session.key, resumable=session.resumable)

    def resumed(self, session: Session, stream_id: str) -> OutboundStream | None:
        """A stream of ``session`` kept in the store, for a ``Last-Event-ID`` naming it."""
        if stream_id == "g":
            return session.get_standalone()
        if not session.resumable:
            return None
        return RelayStream(stream_id, state=self.state, session_key=session.key, resumable=True,
                           first_entry=self._first_entry, principal=session.principal)

    async def read_elsewhere(self, session: Session) -> bool:
        """Whether a live process (this one included) reads the unrelated-message stream of
        ``session`` now: a message :meth:`unrelated` sends reaches its client.

        Raises:
            StateUnavailable: the store cannot be reached.
        """
        return await self.state.has_reader(session.key)

    def unrelated(self, session: Session, message: dict[str, Any]) -> bool:
        """Send ``message`` on ``session``'s unrelated-message stream (GET ``/mcp``, legacy SSE), whichever
        process reads it: written to the stream's log once the store says a reader holds it, else
        dropped (nobody would read it; a fresh GET starts after what the log holds). Messages of a
        session keep their order. Returns True: whether it arrives is known later (a question asks
        :meth:`read_elsewhere` first)."""
        waiting = self._waiting.get(session.key)
        if waiting is None:
            waiting = self._waiting[session.key] = deque(maxlen=MAX_WAITING)
            self._spawn(self._write_when_read(session.key, waiting))
        waiting.append(message)
        return True

    async def _write_when_read(self, session_id: str, waiting: deque[dict[str, Any]]) -> None:
        try:
            while waiting:
                try:
                    read = await self.state.has_reader(session_id)
                except StateUnavailable:
                    read = True  # cannot tell now: written once the store is back, for whoever reads then
                batch = list(waiting)
                waiting.clear()
                if not read:
                    log.debug("%d message(s) for a session's GET stream dropped: no process reads it", len(batch))
                    continue
                for message in batch:
                    self.state.append(session_id, "g", {"m": json.dumps(message), "f": "0", "o": self.state.process})
        finally:
            if self._waiting.get(session_id) is waiting:
                del self._waiting[session_id]

    # -- server→client requests --------------------------------------------------------------
    async def expect(self, session: Session, request_id: str, timeout: float | None) -> None:
        """Note that this process waits for the answer to ``request_id`` (any process may get it) for ``timeout``
        seconds (None: no limit, noted for the longest wait, :data:`~nanohubmcp.protocol.seconds.MOST_WAIT_SECONDS`)."""
        await self.state.put_pending(session.key, request_id, MOST_WAIT_SECONDS if timeout is None else timeout)

    def forget(self, session: Session, request_id: str) -> None:
        spawn_cleanup(self._tasks, functools.partial(self.state.drop_pending, session.key, request_id))

    async def relay_answer(self, session: Session, message: jsonrpc.Message) -> bool:
        """Hand a client's answer to the process waiting for it; False when none does."""
        if not isinstance(message.id, str):
            return False
        try:
            return await self.state.answer(session.key, message.id, message.raw)
        except StateUnavailable:
            log.warning("an answer to %s could not be relayed: the state store is unreachable", message.id)
            return False

    def _answered(self, key: str, request_id: str, response: dict[str, Any]) -> None:
        session = self._by_key(key)
        future = session.pending.get(request_id) if session is not None else None
        if future is not None and not future.done():
            future.set_result(response)

    # -- cancellation ------------------------------------------------------------------------
    def cancel_elsewhere(self, session: Session, request_id: str | int, reason: Any) -> None:
        """A ``notifications/cancelled`` for a request not running here: for the process running it, or about to
        run it (kept here too: its POST may be on its way to this process)."""
        why = reason[:MAX_REASON] if isinstance(reason, str) else None
        self._early.keep(session.key, request_id, why or CANCELLED)
        self._spawn(self.state.cancel(session.key, request_id, why))

    def cancelled_before(self, session: Session, request_id: str | int) -> str | None:
        """The reason of a cancel of ``request_id`` heard before the request started here (taken: asked once, as
        the request starts); None when none was, or long ago (:mod:`.early_cancels`). A lookup in memory."""
        return self._early.take(session.key, request_id)

    def _cancelled(self, key: str, request_id: Any, reason: Any) -> None:
        if not jsonrpc.valid_id(request_id):
            return
        why = reason if isinstance(reason, str) else CANCELLED
        session = self._by_key(key)
        target = session.in_flight.get(request_id) if session is not None else None
        if target is not None:
            target.cancel(why, withdrawn=True)
        else:  # not started here (yet): its POST may still be on its way to this process
            self._early.keep(key, request_id, why)
            log.debug("a cancel of request %r, not running here, kept for it to start", request_id)

    # -- notifications -----------------------------------------------------------------------
    def list_changed(self, message: dict[str, Any]) -> None:
        """Send ``message`` on the unrelated-message stream of every session reading one."""
        self._spawn(self._fan_out(message, None))

    def resource_updated(self, message: dict[str, Any], uri: str) -> None:
        """Send ``message`` to every session subscribed to ``uri`` in any spelling, naming the URI as each
        subscribed it."""
        self._spawn(self._fan_out(message, uri))

    async def _fan_out(self, message: dict[str, Any], uri: str | None) -> None:
        try:
            targets: list[tuple[str, str | None]] = (
                [(session_id, None) for session_id in await self.state.listeners()] if uri is None
                else list(await self.state.subscribers(uri)))
        except StateUnavailable:
            log.warning("%s not sent: the state store is unreachable", message.get("method"))
            return
        text = json.dumps(message)
        for session_id, named in targets:
            sent = text if named is None or named == uri else json.dumps({**message, "params": {"uri": named}})
            self.state.append(session_id, "g", {"m": sent, "f": "0", "o": self.state.process})

    def _spawn(self, work: Awaitable[object]) -> None:
        spawn_tolerant(self._tasks, work)
