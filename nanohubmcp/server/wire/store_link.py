"""``StoreLink``: one process's link to the shared state store (Redis), from before it listens to its stop.

Owns when a process talks to the store as serving starts and stops: the key signing the 2026-07-28
``requestState`` read before the port is bound (:meth:`StoreLink.prepare`), the store connected on
the serving loop with this process's sessions kept in step (:meth:`StoreLink.connect`, which makes
the :class:`~.replication.Replication`), and disconnected at the stop (:meth:`StoreLink.disconnect`): a stopping
server's runner keeps it connected through its drain and closes it once the streams ended (:meth:`StoreLink.close`),
so the answers written meanwhile reach the event logs.
Does not own what is kept in step (:mod:`.replication`), the store's implementation
(:mod:`nanohubmcp.state`), nor the ``requestState`` codec (the core makes it from the key
:meth:`StoreLink.connect` tells it, again if the store's key changes). Memory and SQLite share nothing: the core
makes no link for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...state import StateURL, open_shared
from ...state.base import CLOSE_FLUSH_SECONDS
from ...state.principal_digest import PrincipalDigest

if TYPE_CHECKING:
    from ...state.base import SharedState
    from .replication import Replication
    from .sessions import SessionStore

Signs = Callable[[str | bytes, Callable[[str, float], bool]], None]
"""What :meth:`StoreLink.connect` tells the ``requestState`` key to: ``signs(key, consume)``, ``consume(nonce,
expires)`` marking a state's nonce used in the store (False: it was)."""


class StoreLink:
    """The shared state store ``url`` names, as one process of the server ``name`` reaches it.

    Args:
        url: the server's ``state_url`` (a shared one: Redis).
        name: the server's name (the store keeps its keys under it).
        sessions: this process's sessions, kept in step with the store once connected.
        secret: the ``state_secret`` given, or None (every process then uses the store's key).
    """

    def __init__(self, url: StateURL, name: str, sessions: SessionStore, secret: str | bytes | None) -> None:
        self._url = url
        self._name = name
        self._sessions = sessions
        self._secret = secret
        self._key: bytes | None = None
        """The store's ``requestState`` key, read by :meth:`prepare` before the port was bound; taken
        by the next :meth:`connect`."""
        self._left: SharedState | None = None
        """The store :meth:`disconnect` stopped keeping sessions in step with, until :meth:`close`."""

    def _open(self) -> SharedState:
        state = open_shared(self._url, self._name, idle_seconds=self._sessions.idle_seconds)
        assert state is not None  # a shared URL (the core links to no other)
        return state

    def prepare(self) -> None:
        """Read the key signing ``requestState``, the same in every process (made by the first to
        ask), before the port is bound. A store that cannot be reached, or refuses the URL, then stops
        the server before it listens; once a process listens, nothing of its start waits on the store,
        so an outage is answered 503 until the store is back and never ends the process (a process
        that listened, then exited when Redis went away at that moment, looked up to its balancer).
        Nothing to read with ``state_secret``.

        Raises:
            ConfigurationError: the store cannot be reached, or refuses the URL (the message says why).
        """
        if self._secret is None:
            self._key = self._open().request_state_key()  # only made, not started: no connection stays open

    def connect(self, loop: asyncio.AbstractEventLoop, signs: Signs, state_dir: str | None = None) -> Replication:
        """Connect on ``loop`` (the serving loop of this process); returns the replication keeping
        this process's sessions in step. ``signs(key, consume)`` is told the ``requestState`` key and the store's
        marking of a used nonce: the secret given, else the one :meth:`prepare` read, else the store's read now (an
        application served by ``make_app()``, whose runner called no :meth:`prepare`). The store's key is kept the
        store's (:meth:`SharedState.keep_request_state_key <nanohubmcp.state.base.SharedState.keep_request_state_key>`):
        if the store lost it and another process made another, this process takes that one, for its principals'
        digests and ``signs`` again. ``state_dir``, this process's state directory, is compared
        once with the live peers' (a WARNING when one differs: :mod:`nanohubmcp.state.redis_state_dirs`)."""
        from .replication import Replication  # several processes: with the shared store only

        state = self._open()
        # Every process must accept the others' requestState once: the key (unless given) and the used
        # nonces live in the shared store. Read first (by prepare, before the port was bound, when a
        # runner serves): a URL the store refuses ('?foo=bar', '/99') stops the server with its one
        # line, before the heartbeat and the subscription log failures.
        secret, read, self._key = self._secret, self._key, None
        stored = None if secret is not None else read if read is not None else state.request_state_key()
        key = secret if stored is None else stored
        assert key is not None
        replication = Replication(self._sessions, state, PrincipalDigest(key))
        signs(key, state.consume_nonce)
        if stored is not None:  # the store's: kept the store's, or another taken (the store lost it meanwhile)

            def changed(new: bytes) -> None:
                replication.digest = PrincipalDigest(new)
                signs(new, state.consume_nonce)

            state.keep_request_state_key(stored, changed)
        state.start(loop, state_dir)
        return replication

    def disconnect(self, replication: Replication, loop: asyncio.AbstractEventLoop | None, *,
                   keep: bool = False) -> asyncio.Task[None] | None:
        """Stop keeping sessions in step; disconnect from the store on ``loop`` now (:meth:`close`: returns its
        task, for the caller to wait for, bounded: :func:`.store_close.wait_closed`), or with ``keep`` leave it
        connected until :meth:`close` (returns None): its writer of event logs, its reads of them, its answers from
        other processes and its heartbeat go on, so the answers a stopping server still writes during its drain
        reach the logs (a client resuming on another process gets them)."""
        self._sessions.use_relay(None)
        self._left = replication.state
        return None if keep else self.close(loop)

    def close(self, loop: asyncio.AbstractEventLoop | None,
              flush: float = CLOSE_FLUSH_SECONDS) -> asyncio.Task[None] | None:
        """Disconnect on ``loop`` from the store :meth:`disconnect` left connected, first writing what is queued
        for its event logs (``flush`` seconds at most: :meth:`SharedState.close
        <nanohubmcp.state.base.SharedState.close>`); returns the disconnecting task, for the caller to wait for,
        bounded (:func:`.store_close.wait_closed`: a task nobody waits for is cancelled mid-flush when its loop
        ends), or None when nothing is left connected (or ``loop`` is gone)."""
        state, self._left = self._left, None
        if state is None or loop is None or loop.is_closed():
            return None
        return loop.create_task(state.close(flush))

