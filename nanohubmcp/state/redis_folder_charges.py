"""The per-caller budget of waiting batch jobs' inputs, counted in Redis for every process of a server.

With ``state_url="redis://…"`` the processes of a server share ``job_dir``'s quota as they share the callers: the
budget of :mod:`nanohubmcp.server.executors.folder_budget` (``max_kept_bytes_per_owner``) is counted here, so N
processes allow one caller the budget once, not N times.

``fb:<owner key>`` under the server's namespace (a principal's as ``fb:pd:<digest>``, never its subject:
:mod:`.redis_job_owners`): a hash, one field per charge (a job's id, or a charge made just
before its job is stored) holding ``"<bytes> <lease end>"`` (Redis's clock, epoch seconds). A charge is a lease of
:data:`LEASE_SECONDS`: the process holding the job renews its charges at each sweep of the server (every minute,
:meth:`RedisFolderCharges.renew`), so a charge of a process that died (or stopped, leaving its Slurm jobs queued)
counts no more once its lease ends; the server that takes the job back charges it again (``recount``, the field
written again: never counted twice). A job's end stored on any process deletes its charge. The key itself expires
with the last lease renewed in it. Why a lease and not only ``INCRBY``/``DECRBY``: a count has no owner to expire,
so a process dying between the two would hold its caller's budget for good, and a job taken back would be counted
twice; a field per job is idempotent, and its lease ends with its holder.

Each step is one Lua script (summing the live charges and adding one happen at once: two processes cannot both slip
past the bound). Redis unreachable or refusing writes: a charge raises ``StateUnavailable`` (the call is answered
503, as the job store would); a renewal, a move or a release is skipped (the lease ends it).
"""

from __future__ import annotations

import contextlib

from .errors import StateUnavailable
from .redis_job_owners import JobOwners
from .redis_jobs import Outage, sync_client
from .url import StateURL

LEASE_SECONDS = 300
"""Seconds a charge lasts unless renewed (renewed every minute by the process holding its job)."""

TAKE = """
local now = tonumber(redis.call('TIME')[1])
local size, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
local held = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local bytes, ends = string.match(fields[i + 1], '^(%d+) (%d+)$')
  if bytes and tonumber(ends) >= now then
    if fields[i] ~= ARGV[1] then held = held + tonumber(bytes) end
  else
    redis.call('HDEL', KEYS[1], fields[i])
  end
end
if ARGV[5] ~= '1' and held + size > limit then return held end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. (now + tonumber(ARGV[4])))
redis.call('EXPIRE', KEYS[1], ARGV[4])
return -1
"""
"""Drops the charges whose lease ended, sums the others (the charge's own former value left out) and adds the
charge unless the sum would pass the limit (unless forced). Returns -1 (charged) or the bytes held (refused).

KEYS: ``fb:<owner>``; ARGV: charge id, bytes, limit, lease seconds, "1" to force"""

RENEW = """
local ends = tonumber(redis.call('TIME')[1]) + tonumber(ARGV[1])
local renewed = 0
for i = 2, #ARGV do
  local value = redis.call('HGET', KEYS[1], ARGV[i])
  if value then
    redis.call('HSET', KEYS[1], ARGV[i], string.match(value, '^%d+') .. ' ' .. ends)
    renewed = renewed + 1
  end
end
if renewed > 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return renewed
"""
"""Renews the lease of the charges named that are still there (a charge released elsewhere stays released).

KEYS: ``fb:<owner>``; ARGV: lease seconds, charge id..."""

MOVE = """
local value = redis.call('HGET', KEYS[1], ARGV[1])
if value then
  redis.call('HSET', KEYS[1], ARGV[2], value)
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return value and 1 or 0
"""
"""The charge ARGV[1] is ARGV[2]'s from now on. KEYS: ``fb:<owner>``."""


class RedisFolderCharges:
    """The folder budget's charges in Redis (the module docstring); called on any thread.

    Args:
        url: the state URL.
        name: the server's name (its namespace in Redis).
        secret: the ``state_secret`` given, or None: the key of a principal's digest (:mod:`.redis_job_owners`).
    """

    def __init__(self, url: StateURL, name: str, secret: str | bytes | None = None) -> None:
        self.namespace = f"nanohubmcp:{name}:"
        self._redis = sync_client(url)
        self._guard = Outage(url.shown)
        self._owners = JobOwners(self._redis, lambda *parts: self.namespace + ":".join(parts), secret, self._guard)
        self._take = self._redis.register_script(TAKE)
        self._renew = self._redis.register_script(RENEW)
        self._move = self._redis.register_script(MOVE)

    def _key(self, owner: str) -> str:
        """``fb:<owner>``, a principal's under its digest."""
        return f"{self.namespace}fb:{self._owners.owner_key(owner)}"

    def take(self, owner: str, charge: str, size: int, limit: int, *, force: bool = False) -> int | None:
        """Charge ``owner`` ``size`` bytes as ``charge`` unless its live charges and this one pass ``limit``
        (``force``: charged all the same). Returns None (charged) or the bytes ``owner`` holds (refused).

        Raises:
            StateUnavailable: Redis cannot be reached or refuses writes (nothing charged).
            StateBusy: every pooled connection is in use.
        """
        with self._guard():
            held = int(self._take(keys=[self._key(owner)], args=[charge, size, limit, LEASE_SECONDS,
                                                                    "1" if force else ""]))
        return None if held < 0 else held

    def renew(self, charges: dict[str, list[str]]) -> None:
        """Renew the leases of ``charges`` (charge ids by owner) still there."""
        with contextlib.suppress(StateUnavailable), self._guard():
            pipe = self._redis.pipeline(transaction=False)
            for owner, ids in charges.items():
                self._renew(keys=[self._key(owner)], args=[LEASE_SECONDS, *ids], client=pipe)
            pipe.execute()

    def move(self, owner: str, old: str, new: str) -> None:
        """The charge ``old`` of ``owner`` is ``new``'s from now on (the job made: its id)."""
        with contextlib.suppress(StateUnavailable), self._guard():
            self._move(keys=[self._key(owner)], args=[old, new])

    def release(self, owner: str, charge: str) -> None:
        """The charge ``charge`` of ``owner`` counts no more (its job ended, or was never made)."""
        with contextlib.suppress(StateUnavailable), self._guard():
            self._redis.hdel(self._key(owner), charge)

    def held(self, owner: str) -> int:
        """The bytes of ``owner``'s charges, leases ended or not (for a look, not a decision)."""
        with self._guard(reading=True):
            values = self._redis.hvals(self._key(owner))
        return sum(int(value.split(" ", 1)[0]) for value in values)
