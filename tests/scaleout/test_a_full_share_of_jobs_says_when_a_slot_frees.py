"""A caller whose share of the job store is full (``max_jobs_per_owner``) is told when a slot frees, and a
job whose record expired stops counting at once, on every back end (in memory, one SQLite file, a real
redis-server).

Trial56 F9: 1,000 finished jobs refused a principal's next job for up to an hour with a 429 that had no
``Retry-After``. Finished jobs count until they expire (the bound is on what a principal keeps stored:
their results); the refusal now says when the first of them expires (``retry_after``: the MCP result's
``_meta``, REST's ``Retry-After``), and one that expired but was not swept yet (the sweep runs every 10 s;
Redis keeps the record a minute longer) no longer counts. Before, ``retry_after`` did not exist and the
expired job still refused the next one.

Trial57 F2: the refusal's text (what a model reads, and REST's ``error``) still said only "Wait until earlier
jobs finish and expire", when all 1,000 had finished: it now says how many run and how many finished and are
kept, and when the first slot frees, the seconds ``Retry-After`` gives.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from full_stores import TTL, finish, refused_once_full
from support import wait_until

from nanohubmcp.errors import JobLimitReached
from nanohubmcp.server.jobs import service as jobmod

pytestmark = pytest.mark.timeout(120)


def test_the_refusal_says_when_the_first_finished_job_expires(
        job_store_of_each_kind: Callable[..., jobmod.JobStore]) -> None:
    store = job_store_of_each_kind(TTL, "share", max_jobs_per_owner=2)
    first, _second = store.create("work", "s1"), store.create("work", "s1")
    with pytest.raises(JobLimitReached) as running:
        store.create("work", "s1")
    assert running.value.retry_after is None  # both still run: no one knows when a slot frees
    assert "all 2 of yours are still running, so a slot frees only once one of them ends" in str(running.value)
    finish(first)
    with pytest.raises(JobLimitReached, match="max_jobs_per_owner") as finished:
        store.create("work", "s1")
    assert TTL - 5 <= finished.value.retry_after <= TTL
    assert (f"you have 1 running and 1 finished and kept. A slot frees in about {finished.value.retry_after} s, "
            "when your first finished job expires") in str(finished.value)
    store.create("work", "s2")  # another owner's share is its own


def test_a_job_expired_but_not_swept_yet_no_longer_counts(
        job_store_of_each_kind: Callable[..., jobmod.JobStore]) -> None:
    store = job_store_of_each_kind(1.0, "share", max_jobs_per_owner=2)
    jobs = [store.create("work", "s1") for _ in range(2)]
    for job in jobs:
        finish(job)
    ends = max(job.finished_at for job in jobs) + 1.0
    wait_until(lambda: time.time() > ends + 0.05, "both jobs to expire", 10)
    assert store.create("work", "s1").status == jobmod.WORKING


def test_rest_answers_429_with_retry_after_and_mcp_with_retry_after_meta(tmp_path: Path) -> None:
    refused = refused_once_full(tmp_path, "shared", max_jobs_per_owner=1)  # MCP's call: the same (sessionless) owner
    assert "max_jobs_per_owner" in refused.error
    assert (f"all 1 of yours have finished and are kept. A slot frees in about {refused.retry_after} s"
            in refused.error), refused
