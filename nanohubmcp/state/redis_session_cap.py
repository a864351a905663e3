"""The cap of sessions per principal across processes: each principal's sessions counted in Redis.

A server caps how many sessions one authenticated principal holds (the session table's
``max_per_principal``); with Redis state the cap holds across every process of the server. Each
principal's sessions are a sorted set, ``pr:<keyed digest of the principal>`` (:mod:`.principal_digest`: the
callers pass the digest, never the subject), scored by when each was
opened (Redis's clock, in microseconds). Opening a session costs one script call
(:data:`COUNT_OPENED`), sent in the pipeline that stores its record
(:meth:`~nanohubmcp.state.redis_sessions.RedisSessions.save`): it adds the session, takes out those
whose record expired and those this process just ended, and, past the cap, takes out the oldest and
returns their keys, for the caller to end. Deleting a session takes it out
(:meth:`SessionCap.forget`). A set outlives the last session its principal opened by
:data:`PRINCIPAL_KEEP` seconds.

This module owns the set's key and the script; storing the record is :mod:`.redis_sessions`'s,
ending the sessions past the cap the server's (``server/wire/replication``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Opened

PRINCIPAL_KEEP = 86_400
"""Seconds a principal's count of sessions (``pr:<digest>``) outlives the last session it opened."""
COUNT_OPENED = """
local key = KEYS[1]
for i = 5, #ARGV do redis.call('ZREM', key, ARGV[i]) end
local now = redis.call('TIME')
redis.call('ZADD', key, now[1] .. string.format('%06d', tonumber(now[2])), ARGV[1])
redis.call('EXPIRE', key, ARGV[3])
local cap = tonumber(ARGV[2])
local ended = {}
if redis.call('ZCARD', key) > cap then
  for _, member in ipairs(redis.call('ZRANGE', key, 0, -1)) do
    if redis.call('EXISTS', ARGV[4] .. member) == 0 then redis.call('ZREM', key, member) end
  end
  while redis.call('ZCARD', key) > cap do
    table.insert(ended, redis.call('ZPOPMIN', key)[1])
  end
end
return ended
"""
"""Count a newly opened session among its principal's (``pr:<digest>``, scored by when each was
opened, in microseconds of Redis's clock): the keys given after the fourth argument are gone
already; sessions whose record expired leave the count; past the cap the oldest leave it, and
their keys are returned (to be ended)."""


class SessionCap:
    """The principals' counts of sessions of :class:`~nanohubmcp.state.redis_state.RedisState`.

    Args:
        key: builds a namespaced key from its parts.
        records: the prefix of the session records' keys (a session whose record is gone has ended).
    """

    def __init__(self, key: Callable[..., str], records: str) -> None:
        self._key = key
        self._records = records

    def _principal_key(self, principal: str) -> str:
        return self._key("pr", principal)  # the keyed digest of its subject (:mod:`.principal_digest`)

    def count(self, pipe: Any, session_id: str, opened: Opened) -> None:
        """Add to ``pipe`` the count of ``session_id``, just opened by ``opened``'s principal (its cap,
        the keys of its sessions just ended here): one command, whose reply is the keys past the cap."""
        principal, cap, gone = opened
        pipe.eval(COUNT_OPENED, 1, self._principal_key(principal), session_id, cap, PRINCIPAL_KEEP, self._records,
                  *gone)

    def forget(self, pipe: Any, session_id: str, principal: str) -> None:
        """Add to ``pipe`` the removal of ``session_id`` from ``principal``'s count (it ended)."""
        pipe.zrem(self._principal_key(principal), session_id)
