"""The server→client requests a process waits for, and the answers other processes relay to it.

Keys, under the server's namespace:

- ``p:<session>:<request>``: the process waiting for the answer (its id), until the request's timeout;
- ``a:<session>:<request>``: the answer relayed to it (JSON ``{"s", "r", "m"}``), kept for as long as the
  pending key lives, deleted with it once the request ends.

The process a client's answer reaches relays it in one step (:data:`RELAY`, a Lua script: one round trip): it
reads the waiting process, keeps the answer beside the pending key and PUBLISHes it on the waiting process's
channel ``c:<process>``. A PUBLISH reaches only the subscribers of that moment: one made while the waiting
process's subscription is being made or made again (its connection was lost) reaches nobody. The kept copy
closes that gap: each time the subscription is made, Redis having confirmed it, the process reads the kept
answers of the requests it waits for (:meth:`RedisAnswers.collect`, one ``MGET`` per
:data:`COLLECT_BATCH` requests; none when it waits for none). The script is atomic, so an answer is either
published while the subscription stands, or kept before the read that follows it. An answer heard twice (both
ways) is taken once: the waiting request's future is done.

What this module does not own: the subscription itself (:mod:`.redis_channels`), the futures the answers
settle (``Session.pending``, :mod:`nanohubmcp.server.wire.pending`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

from ..protocol import jsonenc
from .errors import CLEANUP_PAUSE_SECONDS, StateBusy, StateUnavailable
from .redis_events import Guard

log = logging.getLogger("nanohubmcp.state")

RELAY = """
local owner = redis.call('GET', KEYS[1])
if not owner then return -1 end
local left = redis.call('PTTL', KEYS[1])
if left > 0 then redis.pcall('SET', KEYS[2], ARGV[2], 'PX', left) end
return redis.call('PUBLISH', ARGV[1] .. owner, ARGV[2])
"""
"""Relays an answer: -1 when no process waits for it, else how many subscribers heard it (0: kept only).

KEYS: ``p:<session>:<request>``, ``a:<session>:<request>``; ARGV: the channel's key less the process id
(``<namespace>c:``), the answer (JSON). The copy is kept with ``pcall``: a Redis refusing writes (``OOM``, a
replica's ``READONLY``) still publishes the answer, as a PUBLISH alone did."""
RELAY_SHA = hashlib.sha1(RELAY.encode()).hexdigest()  # Redis names a script by its SHA-1
COLLECT_BATCH = 500
"""Kept answers read by one ``MGET`` after a subscription is made."""

Answered = Callable[[str, str, dict[str, Any]], None]
"""``(session id, request id, response)``: an answer another process relayed."""


class RedisAnswers:
    """This process's pending server→client requests in Redis, and the answers relayed to it.

    Args:
        guard: the pooled client, guarded (a connection failure raises ``StateUnavailable``).
        key: the key of its parts, under the server's namespace.
        process: this process's id.
    """

    def __init__(self, guard: Guard, key: Callable[..., str], process: str) -> None:
        self._guard = guard
        self._key = key
        self.process = process
        self.on_answer: Answered | None = None
        self._waiting: set[tuple[str, str]] = set()
        """The requests this process waits for, from :meth:`put` to :meth:`drop`."""

    async def put(self, session_id: str, request_id: str, ttl: float) -> None:
        """Note this process as the one waiting for the answer to ``request_id``, for ``ttl`` seconds.

        Raises:
            StateUnavailable: the store cannot be reached.
        """
        self._waiting.add((session_id, request_id))  # first: a subscription made meanwhile reads its answer
        async with self._guard() as client:
            await client.set(self._key("p", session_id, request_id), self.process, ex=max(1, int(ttl) + 1))

    async def drop(self, session_id: str, request_id: str) -> None:
        """Forget a pending request and its kept answer (answered, timed out, abandoned).

        Raises:
            StateUnavailable: the store cannot be reached (both keys expire with the request's timeout).
        """
        self._waiting.discard((session_id, request_id))
        async with self._guard() as client:
            await client.delete(self._key("p", session_id, request_id), self._key("a", session_id, request_id))

    async def relay(self, session_id: str, request_id: str, response: dict[str, Any]) -> bool:
        """Hand a client's answer to the process waiting for it (:data:`RELAY`): heard at once, or read by it once
        its subscription is made again. False when no process waits for it (none asked, or its wait ended).

        Raises:
            StateUnavailable: the store cannot be reached.
        """
        payload = json.dumps({"s": session_id, "r": request_id, "m": jsonenc.plain(response)})
        keys = (self._key("p", session_id, request_id), self._key("a", session_id, request_id))
        async with self._guard() as client:
            try:
                heard = await client.evalsha(RELAY_SHA, 2, *keys, self._key("c", ""), payload)
            except Exception as exc:
                if not _no_script(exc):
                    raise
                await client.script_load(RELAY)  # a new or flushed Redis
                heard = await client.evalsha(RELAY_SHA, 2, *keys, self._key("c", ""), payload)
        return int(heard) >= 0

    def heard(self, payload: dict[str, Any]) -> None:
        """An answer relayed on this process's channel (or kept for it): to the request waiting for it."""
        if self.on_answer is not None:
            self.on_answer(str(payload.get("s")), str(payload.get("r")), payload.get("m") or {})

    async def collect(self) -> None:
        """Read the kept answers of the requests this process waits for (its subscription was just made: one
        relayed meanwhile was heard by nobody). Every pooled connection in use: read once one is free (the
        store is up). The store unreachable: not read now; the subscription is lost with it, and the next one,
        made once the store is back, reads them."""
        waiting = list(self._waiting)
        for start in range(0, len(waiting), COLLECT_BATCH):
            batch = [key for key in waiting[start:start + COLLECT_BATCH] if key in self._waiting]
            while batch:
                try:
                    async with self._guard() as client:
                        kept = await client.mget([self._key("a", session_id, request) for session_id, request in batch])
                    break
                except StateBusy:
                    await asyncio.sleep(CLEANUP_PAUSE_SECONDS)
                except StateUnavailable:
                    return
            else:
                continue
            for data in kept:
                if data is not None:
                    self._heard_kept(data)

    def _heard_kept(self, data: str) -> None:
        try:
            payload = json.loads(data)
        except ValueError:
            return
        if isinstance(payload, dict):
            self.heard(payload)


def _no_script(error: Exception) -> bool:
    """Whether ``error`` is Redis's "no such script". (``redis`` is imported here: this module is imported before
    the store checks that the package is installed, and names the extra if not.)"""
    from redis.exceptions import NoScriptError

    return isinstance(error, NoScriptError)
