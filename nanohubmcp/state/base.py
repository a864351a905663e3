"""The seam between the server layer and a shared state store.

What several processes serving one endpoint must agree on, in store-neutral terms: session
records (JSON objects), per-stream event logs (append-only, bounded, resumable by entry id),
pending server→client requests and their answers, who listens for unrelated messages, the
subscribers of each resource URI, the ``requestState`` key and its used ids, and which processes
are alive. Every key lives at most ``idle_seconds`` after its last use, or is bounded.

Methods raise :class:`~nanohubmcp.state.errors.StateUnavailable` when the store cannot be
reached; ``append`` and ``broadcast`` never raise (they queue, in order, and retry).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Any, Protocol


def session_key(session_id: str) -> str:
    """What stored records (provenance, jobs, large results, the marker of a live session in a
    shared store) keep of a session: the SHA-256 of its id, 64 hex digits. The id is the session's
    credential when there is no authorization, so a record never holds it; it is 32 random bytes,
    so its digest needs no secret key to be irreversible. A caller is matched by the key of its id.
    """
    return hashlib.sha256(session_id.encode()).hexdigest()


CLOSE_FLUSH_SECONDS = 1.0
"""How long closing a store waits, by default, for the entries queued for its event logs to be written (a
stopping server's last answers: :meth:`SharedState.close`)."""

Fields = dict[str, str]
"""One event log entry: ``m`` the message (JSON), ``f`` ``"1"`` when it is the stream's last,
``e`` the event id the producer gave it, ``o`` the producing process, ``r`` the request id
(JSON) the stream answers, ``x`` ``"1"`` for the marker that closes a stream, ``n`` (:data:`NUMBER`) the
writing process's number of an entry of a session's stream of unrelated messages."""
NUMBER = "n"
"""The field numbering a process's entries of sessions' streams of unrelated messages (``g``), from 1, in the order
queued (the store adds it): with the writer's ``o`` it names an entry, so a reader skips a copy (a batch retried after
a timeout may have reached Redis: its entries are then in the log twice). A POST response stream's entries are
numbered by their producer's event id (``e``)."""
Opened = tuple[str, int, list[str]]
"""A session just opened, for :meth:`SharedState.save_session`: its principal (the keyed digest of its subject,
:mod:`.principal_digest`), that principal's cap of sessions, and the keys of the principal's sessions this process
ended just before."""


class SharedState(Protocol):
    """A store several server processes share (Redis).

    A session is named by its key (:func:`session_key` of its id, 64 hex digits), never its id: every
    ``session_id`` argument, and every session a method returns or a callback is given, is that key, and a
    session record holds it as ``key``. Without authorization an id is the session's credential, and a store
    with persistence writes what it holds to disk: the store holds no session id. Likewise every ``principal``
    argument (and a record's ``principal_digest``) is the keyed digest of the subject
    (:class:`~.principal_digest.PrincipalDigest`): the store holds no subject."""

    process: str
    """This process's id (random; names its heartbeat and its answer channel)."""
    shown: str
    """The store's URL without its password, for messages."""
    down: bool
    """True while the store is unreachable (from the first failed command until one succeeds again)."""

    @property
    def refusing(self) -> str | None:
        """While the store refuses writes (``OOM``, ``READONLY``), its last refusal (``"OOM command not allowed
        ..."``); None while it takes them."""
        ...

    def answers_to(self, callback: Callable[[str, str, dict[str, Any]], None] | None) -> None:
        """Call ``callback(session id, request id, response)`` when another process relays an
        answer (None: stop)."""
        ...

    def broadcasts_to(self, callback: Callable[[str, dict[str, Any]], None] | None) -> None:
        """Call ``callback(method, params)`` for a notification another process broadcast (None: stop)."""
        ...

    def cancels_to(self, callback: Callable[[str, Any, Any], None] | None) -> None:
        """Call ``callback(session id, request id, reason)`` when a client cancelled, on another
        process, a request of its session (None: stop). The request may not have started here yet (its
        POST still on its way), or have ended; a cancel sent while the store could not tell this process
        at once is told once it can (so one may be told twice)."""
        ...

    def start(self, loop: asyncio.AbstractEventLoop, state_dir: str | None = None) -> None:
        """Connect on ``loop`` (the serving loop of this process) and start the background work. ``state_dir``: this
        process's state directory (resolved), compared once with the live peers' (one WARNING when one differs:
        a result one keeps as a link is read only where that directory is); None: not compared."""

    async def close(self, flush: float = CLOSE_FLUSH_SECONDS) -> None:
        """Write what is queued for the event logs (waiting ``flush`` seconds at most: a store that does not
        answer keeps the process no longer), then stop the background work and disconnect."""

    # -- sessions ----------------------------------------------------------------------------
    def held_session(self, session_id: str) -> dict[str, Any] | None:
        """The record of ``session_id`` when this process may use its own copy now, without asking
        the store; None: call :meth:`load_session`."""

    async def load_session(self, session_id: str) -> dict[str, Any] | None:
        """The record of ``session_id``, or None when gone. Its idle clock is not restarted: the caller compares
        the record's principal with the request's first, then calls :meth:`used_session`."""

    def used_session(self, session_id: str) -> None:
        """A request of the session's principal used it: restart its idle clock (soon; never raises)."""

    async def save_session(
        self,
        record: dict[str, Any],
        subscribed: set[str],
        unsubscribed: set[str],
        *,
        opened: Opened | None = None,
    ) -> list[str]:
        """Store a session record (its ``key`` field names it) and its subscription changes (resource URIs
        as the client sent them).

        ``opened``: the session was just opened, by ``(principal, cap, ids of the principal's
        sessions just ended)``: it is counted among the principal's sessions on every process, and
        the keys of those past ``cap`` (the oldest opened) are returned, for the caller to end; else [].
        """

    async def delete_session(self, session_id: str, subscriptions: set[str], principal: str | None = None) -> None:
        """Forget a session (counted no more among ``principal``'s); its unrelated-message stream
        gets a closing marker."""

    # -- event logs --------------------------------------------------------------------------
    def append(self, session_id: str, stream_id: str, fields: Fields, principal: str | None = None) -> None:
        """Queue an entry for a stream's log (written in the order queued); ``principal``: the digest of the
        subject whose session it is, if any (a store may bound the finished logs of its sessions together)."""

    async def flush(self) -> None:
        """Wait until every entry queued so far is written."""

    async def read(self, session_id: str, stream_id: str, after: str, block_ms: int) -> list[tuple[str, Fields]]:
        """Entries after the entry id ``after`` (``"0-0"``: all), waiting up to ``block_ms``."""

    async def last_id(self, session_id: str, stream_id: str) -> str:
        """The newest entry id of a stream's log (``"0-0"`` when empty)."""

    async def first_event(self, session_id: str, stream_id: str) -> str | None:
        """The event id of the oldest entry of a POST stream's log (``<stream>.<n>``) once older ones were deleted for
        its bytes' bound (a client resuming from before it missed them); ``""`` when none were (or the entry names
        none), None when the log is empty."""

    async def numbers_upto(self, session_id: str, stream_id: str, upto: str) -> dict[str, int]:
        """The highest :data:`NUMBER` of each writing process among a stream's log's entries at or before the entry
        id ``upto`` (bounded; a malformed id: none), for a reader resuming after it."""

    async def alive(self, process: str) -> bool:
        """Whether the process ``process`` is still running (its heartbeat is fresh)."""

    # -- listeners and subscribers -----------------------------------------------------------
    async def add_listener(self, session_id: str) -> None:
        """Note that ``session_id`` reads unrelated messages (a GET or legacy SSE stream)."""

    async def listeners(self) -> list[str]:
        """Sessions that read unrelated messages."""

    async def reader_started(self, session_id: str, reader: str) -> None:
        """Note that a connection in this process reads ``session_id``'s unrelated-message stream
        now, naming it ``reader`` (a token unique within this process) for :meth:`reader_ended`."""

    def reader_ended(self, session_id: str, reader: str) -> None:
        """The reader named ``reader`` stopped (queued; never raises)."""

    async def has_reader(self, session_id: str) -> bool:
        """Whether a live process reads ``session_id``'s unrelated-message stream now."""

    async def subscribers(self, uri: str) -> list[tuple[str, str]]:
        """Sessions subscribed to ``uri`` in any spelling (as ``resources/read`` compares URIs:
        :func:`~nanohubmcp.protocol.uris.comparison_form`), each with the URI as it subscribed:
        ``(session id, uri)``."""

    def broadcast(self, method: str, params: dict[str, Any]) -> None:
        """Tell every other process of a notification (for their stateless-era listeners)."""

    async def cancel(self, session_id: str, request_id: str | int, reason: str | None) -> None:
        """Tell every other process that the client cancelled ``request_id`` of its session."""

    # -- server→client requests --------------------------------------------------------------
    async def put_pending(self, session_id: str, request_id: str, ttl: float) -> None:
        """Record that this process waits for the answer to ``request_id``."""

    async def drop_pending(self, session_id: str, request_id: str) -> None:
        """Forget a pending request (answered, timed out, abandoned)."""

    async def answer(self, session_id: str, request_id: str, response: dict[str, Any]) -> bool:
        """Relay a client's answer to the process waiting for it; False when none waits."""

    # -- the stateless era -------------------------------------------------------------------
    def request_state_key(self) -> bytes:
        """The key signing ``requestState``, the same in every process (created once)."""

    def keep_request_state_key(self, key: bytes, changed: Callable[[bytes], None]) -> None:
        """Sign with ``key`` (:meth:`request_state_key`'s) from now on, and keep it the store's: one the store lost
        is put back, and ``changed(new key)`` is called (on the serving loop) when another process made the store
        another meanwhile, so every process signs with one key again (Redis: :mod:`.redis_key_watch`)."""

    def consume_nonce(self, nonce: str, expires: float) -> bool:
        """Mark a ``requestState`` nonce used until ``expires``; False when it already was."""
