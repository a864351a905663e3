"""A job refused because the whole job store is full (``max_jobs``, every client's jobs) says when to retry, as a
full share of one client (``max_jobs_per_owner``) does: REST's 429 ``Retry-After``, the MCP result's
``_meta["io.nanohub/retryAfter"]``, and its text. Issue 28's leftover: that refusal gave no time at all ("Wait until
earlier jobs finish and expire"), and a record expired but not swept yet (the sweep runs every 10 s) still refused.

The time is the store's earliest expiry, one look at an index (SQLite, Redis) or at memory, never a read of the
records; when the store cannot tell (no job has finished), a documented backoff of 60 s. Every back end: in memory,
one SQLite file, a real redis-server; a real server for the REST and MCP answers.

Review r33 F2: Redis kept no index of expiries. Its refusal always said "retry in 60 s", and an expired job still
filled the store until Redis deleted its record a minute later, or for as long as the 500 oldest jobs ran (its
purge read only those). Its ``jobs:expires`` index (``state/redis_job_expiry``) now answers both, and the records an
earlier version ended, which that index lacks, are scored by the purge's walk.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
from full_stores import TTL, finish, refused_once_full
from support import wait_until

from nanohubmcp.errors import JobLimitReached
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(120)
BACKOFF = 60
"""The documented backoff of a full store that cannot tell when a slot frees (``slot_free.BACKOFF``)."""
OLDER = 500
"""Running jobs older than the expired ones: as many as Redis's purge read before (the 500 oldest ids)."""


def test_the_refusal_says_when_the_first_finished_job_expires_else_a_minute(
        job_store_of_each_kind: Callable[..., jobmod.JobStore]) -> None:
    store = job_store_of_each_kind(TTL, "whole", max_jobs=2)
    first, _second = store.create("work", "s1"), store.create("work", "s2")
    with pytest.raises(JobLimitReached, match=r"at most 2 .*\(option max_jobs\)") as running:
        store.create("work", "s3")
    assert running.value.retry_after == BACKOFF  # both run: nobody knows when a slot frees
    assert not running.value.per_owner
    assert "The server cannot tell when a slot frees" in str(running.value)
    assert "retry in 60 s" in str(running.value)
    finish(first)
    with pytest.raises(JobLimitReached) as finished:
        store.create("work", "s3")
    assert TTL - 5 <= finished.value.retry_after <= TTL
    assert (f"A slot frees in about {finished.value.retry_after} s, when the first finished job expires: retry then"
            in str(finished.value))


def _store(kind: str, request: pytest.FixtureRequest, tmp_path: Path, ttl: float, max_jobs: int,
           name: str = "whole") -> jobmod.JobStore:
    if kind == "redis":
        return jobmod.JobStore(ttl, name=name, shared=parse(request.getfixturevalue("redis_server").url),
                               max_jobs=max_jobs)
    return jobmod.JobStore(ttl, name=name, state_dir=tmp_path, kind=kind, max_jobs=max_jobs)


def _expired(jobs: list[jobmod.Job]) -> None:
    ends = max(job.finished_at + job.ttl for job in jobs if job.finished_at is not None)
    wait_until(lambda: time.time() > ends + 0.05, "the jobs to expire", 10)


@pytest.mark.parametrize("kind", ["memory", "sqlite", "redis"])
def test_a_job_expired_but_not_swept_yet_no_longer_fills_the_store(kind: str, request: pytest.FixtureRequest,
                                                                     tmp_path: Path) -> None:
    store = _store(kind, request, tmp_path, 1.0, 2)
    jobs = [store.create("work", f"s{i}") for i in range(2)]
    for job in jobs:
        finish(job)
    _expired(jobs)
    assert store.create("work", "s3").status == jobmod.WORKING  # (Redis, before: refused for 61 s)
    store.backend.close()


def test_an_expired_job_behind_500_running_ones_no_longer_fills_a_redis_store(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    store = _store("redis", request, tmp_path, 1.0, OLDER + 2)
    for i in range(OLDER):  # older, still running (before: the purge read these only, for ever)
        store.create("work", f"old{i}")
    jobs = [store.create("work", f"s{i}") for i in range(2)]
    for job in jobs:
        finish(job)
    _expired(jobs)
    store.sweep()
    assert store.create("work", "new").status == jobmod.WORKING
    store.backend.close()


def test_jobs_an_earlier_version_ended_without_the_expiry_index_are_scored_and_dropped(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    store = _store("redis", request, tmp_path, TTL, 3, name="earlier")
    short, kept, gone = (store.create("work", f"s{i}", ttl=ttl) for i, ttl in enumerate((0.5, TTL, TTL)))
    for job in (short, kept, gone):
        finish(job)
    raw = redis.Redis.from_url(request.getfixturevalue("redis_server").url)
    raw.delete("nanohubmcp:earlier:jobs:expires", "nanohubmcp:earlier:job:" + gone.id)  # as an earlier version left
    _expired([short])
    with pytest.raises(JobLimitReached) as unknown:  # the index knows no end yet
        store.create("work", "s3")
    assert unknown.value.retry_after == BACKOFF
    store.sweep()  # its walk: short expired, gone's record gone (both dropped), kept scored
    assert store.create("work", "s4").status == store.create("work", "s5").status == jobmod.WORKING
    with pytest.raises(JobLimitReached) as known:
        store.create("work", "s6")
    assert kept.finished_at is not None
    assert known.value.retry_after is not None
    assert abs(known.value.retry_after - (kept.finished_at + TTL - time.time())) <= 2
    assert raw.zcard("nanohubmcp:earlier:jobs") == 3
    raw.close()
    store.backend.close()


def test_processes_purging_at_once_admit_no_more_than_max_jobs(request: pytest.FixtureRequest,
                                                               tmp_path: Path) -> None:
    stores = [_store("redis", request, tmp_path, 1.0, 4, name="racing") for _ in range(2)]
    jobs = [stores[0].create("work", f"s{i}") for i in range(4)]
    for job in jobs:
        finish(job)
    _expired(jobs)
    admitted: list[jobmod.Job] = []

    def start(store: jobmod.JobStore, n: int) -> None:
        for i in range(n):
            with contextlib.suppress(JobLimitReached):
                admitted.append(store.create("work", f"late{i}"))

    threads = [threading.Thread(target=start, args=(stores[i % 2], 3)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(admitted) == 4
    raw = redis.Redis.from_url(request.getfixturevalue("redis_server").url)
    assert raw.zcard("nanohubmcp:racing:jobs") == 4
    raw.close()
    for store in stores:
        store.backend.close()


def test_rest_answers_429_with_retry_after_and_mcp_with_retry_after_meta(tmp_path: Path) -> None:
    assert "(option max_jobs)" in refused_once_full(tmp_path, "whole", max_jobs=1).error
