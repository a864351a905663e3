"""The operator's listing of jobs (``%mcp jobs``, the lab panel's job feed: ``JobStore.listing``) and its
count of other kernels' jobs (``count_elsewhere``) read of each stored record only what they show: never
its arguments or result. On a real redis-server and a real SQLite file, two job stores stand for two
processes; the first stores finished jobs, then one record's result and arguments are made unreadable
(text that is no JSON) and another's result huge (16 MB), through the store's own client.

The second store still lists every job, newest first, with the fields of the whole records, and its
Python allocations while listing stay far below one huge result. Before, each listing read every
record whole: the unreadable one made it raise, the huge one cost its 16 MB (and more) a listing.
"""

from __future__ import annotations

import json
import sqlite3
import tracemalloc
from typing import Any

import pytest
import redis

from nanohubmcp.jupyter.jobs_view import jobs_report
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.server.jobs.stores import SQLiteBackend
from nanohubmcp.server.jobs.visibility import LISTED
from nanohubmcp.state.redis_jobs import RedisJobBackend

pytestmark = pytest.mark.timeout(120)
HUGE = 16 << 20


def overwrite(request: pytest.FixtureRequest, store: jobmod.JobStore, job_id: str, field: str, text: str) -> None:
    """Put ``text`` as it is in the stored ``field`` of ``job_id``'s record, with the store's own client."""
    backend = store.backend
    if isinstance(backend, SQLiteBackend):
        with sqlite3.connect(backend.path) as db:
            db.execute(f"UPDATE jobs SET {field} = ? WHERE id = ?", (text, job_id))
        return
    assert isinstance(backend, RedisJobBackend)
    client = redis.Redis.from_url(request.getfixturevalue("redis_server").url)
    try:
        client.hset(f"{backend.prefix}job:{job_id}", field, text)
    finally:
        client.close()


def test_listing_reads_only_the_listed_fields(two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore],
                                              request: pytest.FixtureRequest) -> None:
    first, second = two_job_stores
    ran = [first.create("tool", "session-a", arguments={"n": n}, executor="processes") for n in range(5)]
    for n, job in enumerate(ran[:4]):
        job.finish(jobmod.COMPLETED, result={"content": [{"type": "text", "text": str(n) * 1000}]})
    ran[4].finish(jobmod.FAILED, error={"message": "no"}, message="it failed")
    own = second.create("mine", "session-b")
    own.finish(jobmod.COMPLETED, result={"content": []})
    ids = [own.id] + [job.id for job in reversed(ran)]  # newest first
    kept = {job_id: second.backend.load(job_id) for job_id in ids}
    overwrite(request, first, ran[1].id, "result", "{no json")
    overwrite(request, first, ran[1].id, "arguments", "[no json either")
    overwrite(request, first, ran[2].id, "result", json.dumps({"content": [{"type": "text", "text": "x" * HUGE}]}))

    tracemalloc.start()
    try:
        every = second.listing()
        theirs = second.listing(limit=3, processes={first.runs.process})
        elsewhere = second.count_elsewhere({second.runs.process})
        report = jobs_report(second, {second.runs.process})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert [row["id"] for row in every] == ids
    for row in every:
        whole: dict[str, Any] | None = kept[row["id"]]
        assert whole is not None
        assert row == {name: whole.get(name) for name in LISTED}
    assert [row["id"] for row in theirs] == ids[1:4]
    assert elsewhere == 5
    assert "(5 more jobs of other kernels in " in report
    assert " mine " in report
    assert peak < HUGE // 8, peak  # (before: the huge result decoded, 16 MB and more)
