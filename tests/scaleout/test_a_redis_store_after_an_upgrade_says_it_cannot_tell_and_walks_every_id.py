"""A Redis job store whose finished jobs an earlier version ended (no ``jobs:expires`` entry: the index key deleted,
as that version left it), all expired, on a real redis-server (review r34 N3):

- A full store's refusal says it cannot tell when a slot frees because it knows no finished job's expiry yet; before,
  it said "none of its stored jobs has finished" while every one had.
- The purge's walk looks at every id within ``max_jobs / WALK_BATCH`` purges, as ``state/redis_job_expiry`` says.
  Before, the walk advanced by the ids it walked while the ids it dropped from ``jobs`` let the next ones slide
  under the window: 300 expired ids took 4 purges, not 3 (1,000 took 13, not 10).
"""

from __future__ import annotations

import time

import pytest
import redis
from full_stores import finish
from redis_server import RedisServer
from support import wait_until

from nanohubmcp.errors import JobLimitReached
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.state.redis_job_expiry import WALK_BATCH
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(120)
JOBS = 3 * WALK_BATCH


def test_an_upgraded_full_store_cannot_tell_and_its_walk_drops_every_expired_id_in_its_stated_purges(
        redis_server: RedisServer) -> None:
    store = jobmod.JobStore(1.0, name="upgraded", shared=parse(redis_server.url), max_jobs=JOBS,
                            max_jobs_per_owner=JOBS)
    raw = redis.Redis.from_url(redis_server.url)
    try:
        jobs = [store.create("work", f"o{i % 7}") for i in range(JOBS)]
        for job in jobs:
            finish(job)
        raw.delete("nanohubmcp:upgraded:jobs:expires")  # as an earlier version left them: no index
        ends = max(job.finished_at + job.ttl for job in jobs if job.finished_at is not None)
        wait_until(lambda: time.time() > ends + 0.05, "the jobs to expire", 10)

        with pytest.raises(JobLimitReached) as full:  # the index knows no end: no sweep before the refusal
            store.create("work", "late")
        text = str(full.value)
        assert "The server cannot tell when a slot frees (it knows no finished job's expiry yet)" in text, text
        assert "has finished" not in text
        assert full.value.retry_after == 60

        purges = 0
        while raw.zcard("nanohubmcp:upgraded:jobs") and purges < 3 * (JOBS // WALK_BATCH):
            store.sweep()
            purges += 1
        assert raw.zcard("nanohubmcp:upgraded:jobs") == 0
        assert purges <= JOBS // WALK_BATCH, f"{JOBS} expired ids took {purges} purges"
    finally:
        raw.close()
        store.backend.close()
