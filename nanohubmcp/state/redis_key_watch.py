"""Every process sharing a Redis keeps signing with the one ``requestState`` key the store holds (``rs:key``).

A process reads ``rs:key`` once, as it starts (:mod:`.redis_request_state`: made by whichever process asks
first), and derives from it what it signs a ``requestState`` and a list cursor with, and the keyed digest of a
principal kept in a session record (:mod:`.principal_digest`). A Redis that loses ``rs:key`` (restarted without
persistence, flushed, or an evicting ``maxmemory-policy``) would let a process started afterwards make another
key, and the processes would then disagree for good: a session opened on one, named on another, is "not this
principal's" there (404), a ``requestState`` or cursor one issued fails the other's check.

So each heartbeat (:mod:`.redis_channels`, every :data:`~.redis_channels.HEARTBEAT_SECONDS`) also sends
``SET rs:key <this process's key> NX`` and ``GET rs:key`` (:class:`KeyWatch`):

- the store lost the key: this process's is put back (``NX``: when several try at once, one wins and the others
  find it equal to theirs, since they held the same); logged as a WARNING;
- the store holds another key (a process made one while it was lost, before any heartbeat put the old one back):
  this process takes it (logged as a WARNING saying what follows) and calls ``changed`` with it, so it signs and
  checks with the store's key from then on. What the processes made with the replaced key stops being accepted
  elsewhere: a session opened before is answered 404 by the other processes (its client initializes again: this
  process still serves it), a ``requestState`` or a list cursor issued before is refused (its client retries
  without it).

The process that put the key back is not the only one to say the store lost it: it may end before it logs (killed
right after Redis executed its ``SET``), or a quiet retry of its heartbeat on a fresh connection may find the key
its first attempt put back, and the others, finding the key equal to theirs, would say nothing. So the same round
trip also sends ``SET rs:since <a new id> NX`` and ``GET rs:since``: ``rs:since`` names the store's keeping of
``rs:key`` (made by the first heartbeat that finds it missing, lost with ``rs:key`` when the store loses what it
holds). Each process remembers the one it first read; finding another, it says the store lost the key (once per
loss), even though the key it finds is its own.

So the processes agree again within a heartbeat of the loss, whatever restarted in between. An explicit
``state_secret`` is never watched: the store holds no key then. What this module does not own: the heartbeat and its
connection (:class:`~.redis_channels.ProcessChannels`), what is derived from the key (the server's).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Any

log = logging.getLogger("nanohubmcp.state")


class KeyWatch:
    """The ``requestState`` key this process holds, compared with the store's at each heartbeat (module docstring).

    Args:
        key: builds a namespaced key from its parts (``rs:key`` under the server's name).
        shown: the store's URL without its password, for the log.
    """

    def __init__(self, key: Callable[..., str], shown: str) -> None:
        self._name = key("rs", "key")
        self._since_name = key("rs", "since")
        self.shown = shown
        self.held: bytes | None = None
        """The key this process signs with (None: not watched: a ``state_secret``, or not connected yet)."""
        self._changed: Callable[[bytes], None] = lambda key: None
        self._since: str | None = None
        """The store's keeping of the key as this process knows it (``rs:since``; None: not read yet)."""

    def keep(self, key: bytes, changed: Callable[[bytes], None]) -> None:
        """Hold ``key`` (the store's, as read when this process started) from now on; ``changed(new key)`` is
        called, on the heartbeat's loop, when the store is found holding another."""
        self.held, self._changed = bytes(key), changed

    def ask(self, pipe: Any) -> int:
        """Add the commands to the heartbeat's ``pipe`` (a redis-py pipeline): put the held key back if the store
        lost it, then read the store's; the same for ``rs:since``. Returns how many were added (0 when no key is
        held): :meth:`heard` is given their answers."""
        if self.held is None:
            return 0
        pipe.set(self._name, self.held.decode(), nx=True)
        pipe.get(self._name)
        pipe.set(self._since_name, secrets.token_hex(8), nx=True)
        pipe.get(self._since_name)
        return 4

    def heard(self, answers: Sequence[object]) -> None:
        """What the commands :meth:`ask` added answered: whether the held key was put back, the store's key (None:
        deleted in between; the next heartbeat looks again), and the same two of ``rs:since``."""
        put_back, stored, _, since = answers
        if self.held is None or stored is None:
            return
        value = stored if isinstance(stored, bytes) else str(stored).encode()
        lost = self._kept_anew(since)
        if value == self.held:
            if put_back:
                log.warning(
                    "shared state store %s had lost the requestState key (rs:key: Redis restarted without "
                    "persistence, was flushed, or evicted it); this process put its own back, so every process "
                    "keeps signing with one key. Give Redis maxmemory-policy noeviction (and persistence to keep "
                    "sessions over a restart)", self.shown)
            elif lost:
                log.warning(
                    "shared state store %s had lost the requestState key (rs:key: Redis restarted without "
                    "persistence, was flushed, or evicted it); it holds this process's again (put back by a "
                    "process's heartbeat), so every process keeps signing with one key. Give Redis maxmemory-policy "
                    "noeviction (and persistence to keep sessions over a restart)", self.shown)
            return
        self.held = value
        log.warning(
            "shared state store %s holds another requestState key (rs:key) than this process's: the store lost "
            "its key and a process made a new one; taking it, so every process signs with one key again. Sessions "
            "opened here before are answered 404 by the other processes (their clients initialize again), and a "
            "requestState or list cursor issued before is refused (retried without it). Give Redis "
            "maxmemory-policy noeviction and persistence, or pass the same state_secret to every process",
            self.shown)
        self._changed(value)

    def _kept_anew(self, since: object) -> bool:
        """Remember ``rs:since`` as read now; whether it differs from the one read before (the store lost the key
        since: a first reading, or none read, says nothing)."""
        if since is None:
            return False
        now = since.decode() if isinstance(since, bytes) else str(since)
        before, self._since = self._since, now
        return before is not None and before != now
