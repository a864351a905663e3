"""When the finished jobs of the Redis job store expire: the index that says it, and the purge that reads it.

``jobs:expires`` is a sorted set of the ids of finished jobs, each scored by when its job expires
(``finished_at + ttl``, epoch seconds). It is written in the step that sets the record's own ``EXPIRE`` (the
``END`` script; :meth:`~.redis_jobs.RedisJobBackend.update` storing a ``finished_at``), so it holds every job
ended by this version. It answers :meth:`ExpiryIndex.earliest` with one look, and lets :meth:`ExpiryIndex.purge`
find the expired ids however many older jobs still run: a full store (``max_jobs``) refusing while one of its
jobs has expired sweeps and is retried (:func:`nanohubmcp.server.jobs.slot_free.insert`), as the other stores are.

Records written by an earlier version, which kept no such index, are scored lazily: each purge also walks a
window of :data:`WALK_BATCH` ids of ``jobs`` from where the last one stopped (``jobs:scan``), scoring a finished
record the index lacks and dropping an id whose record is gone or expired, and going on after the last id it kept
(the ids it dropped do not move the window past the ids that slid into their places), so every id is looked at within
``max_jobs / WALK_BATCH`` purges of the server's processes (100 with the defaults; a process purges at most every
10 s, as it starts a job). Each purge is one Lua script (:data:`.redis_job_scripts.PURGE`), bounded by
:data:`PURGE_BATCH` and :data:`WALK_BATCH` ids, atomic however many processes purge at once: an id dropped is
returned by one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from . import redis_job_scripts as scripts

__all__ = ["PURGE_BATCH", "WALK_BATCH", "ExpiryIndex", "expires_at"]

PURGE_BATCH = 500
"""Expired ids a purge drops at most from the expiry index."""
WALK_BATCH = 100
"""Ids of ``jobs`` a purge looks at for the expiry index's lazy fill (Redis works about 0.4 ms on them)."""


def expires_at(fields: dict[str, Any]) -> float | None:
    """When a job whose record gets ``fields`` expires (epoch seconds: ``finished_at + ttl``), None when they hold no
    ``finished_at`` or ``ttl`` (not an end)."""
    finished, ttl = fields.get("finished_at"), fields.get("ttl")
    return None if finished is None or ttl is None else float(finished) + float(ttl)


class ExpiryIndex:
    """``jobs:expires`` of one server's job store (see the module docstring).

    Args:
        redis: the job store's synchronous client.
        key: the store's key maker (``key("jobs", "expires")`` is the namespaced key).
        guard: the store's outage guard (``with guard(reading=True):`` around each command).
    """

    def __init__(self, redis: Any, key: Callable[..., str],
                 guard: Callable[..., AbstractContextManager[None]]) -> None:
        self._redis = redis
        self._key = key
        self._guard = guard
        self.name = key("jobs", "expires")
        self._purge = redis.register_script(scripts.PURGE)

    def add(self, pipe: Any, job_id: str, at: float) -> None:
        """Score ``job_id`` to expire ``at`` (epoch seconds) in the transaction ``pipe``."""
        pipe.zadd(self.name, {job_id: at})

    def earliest(self) -> float | None:
        """When the first finished job expires (epoch seconds; past: expired, not purged yet), None when no job
        this version ended is indexed: one ``ZRANGE 0 0``."""
        with self._guard(reading=True):
            first = self._redis.zrange(self.name, 0, 0, withscores=True)
        return float(first[0][1]) if first else None

    def purge(self, now: float) -> list[str]:
        """Drop from the indexes the ids of the jobs expired at ``now`` (epoch seconds), at most
        :data:`PURGE_BATCH` of the index's and those of :data:`WALK_BATCH` walked; returns them. The records themselves
        go at their ``EXPIRE`` (``KEEP_AFTER_TTL`` later)."""
        keys = [self._key("jobs"), self.name, self._key("jobs", "live"), self._key("jobs", "scan")]
        args = [repr(float(now)), PURGE_BATCH, self._key("job", ""), self._key("jobs", "o", ""), WALK_BATCH]
        with self._guard(reading=True):
            return [str(job_id) for job_id in self._purge(keys=keys, args=args)]
