"""Following a job another process runs (``JobStore.follow``: a 2026 listen naming a task) reports
each change that process stores (its status and input requests, its progress) and its end; a job
nobody follows costs no message.

Two job stores stand for two processes, on one real redis-server (where the storing process tells
the following one through the channel ``jobs:status``; the follower's own reads are put off for an
hour here, so only the notices move it) and on one SQLite state directory (where the follower
reads the record every second).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import redis

from nanohubmcp.server.jobs import elsewhere
from nanohubmcp.server.jobs import service as jobmod

pytestmark = pytest.mark.timeout(60)

RESULT = {"content": [{"type": "text", "text": "42"}], "isError": False}
ASKED = {"go_on": {"method": "elicitation/create", "params": {"message": "Go on?"}}}


class Reports:
    """What a follower reported, read in order (each read waits up to 30 s)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[jobmod.Job] = asyncio.Queue()

    def __call__(self, job: jobmod.Job) -> None:
        self.queue.put_nowait(job)

    async def until(self, what: str, matches: Callable[[jobmod.Job], bool]) -> jobmod.Job:
        """The first report (from now on) that ``matches``; the follower may report a job unchanged."""
        seen = []
        try:
            while True:
                job = await asyncio.wait_for(self.queue.get(), 30)
                if matches(job):
                    return job
                seen.append((job.status, job.progress))
        except asyncio.TimeoutError:
            raise AssertionError(f"no report of {what} within 30 s; saw {seen}") from None


def test_a_follower_is_told_each_change_and_the_end(
    two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    running, following = two_job_stores
    if following.backend.tells_ends:
        monkeypatch.setattr(elsewhere, "TOLD_LOOK_SECONDS", 3600.0)  # only the store's notices move it
    job = running.create("work", None, as_task=True)

    async def scenario() -> jobmod.Job:
        reports = Reports()
        follower = asyncio.ensure_future(following.follow(following.get(job.id, None), reports))
        first = await reports.until("the job as it is", lambda seen: seen.status == jobmod.WORKING)
        assert first is not job  # (read from the store: another process's own)

        running.progress(job.id, 3, 10, "three")
        progressed = await reports.until("the progress", lambda seen: seen.progress == 3)
        assert (progressed.progress_total, progressed.progress_message) == (10, "three")

        job.status, job.input_requests = jobmod.INPUT_REQUIRED, ASKED
        running.changed(job)
        asked = await reports.until("input_required", lambda seen: seen.status == jobmod.INPUT_REQUIRED)
        assert asked.input_requests == ASKED

        job.status, job.input_requests = jobmod.WORKING, None
        running.changed(job)
        answered = await reports.until("working again", lambda seen: seen.status == jobmod.WORKING)
        assert answered.input_requests is None

        job.finish(jobmod.COMPLETED, result=RESULT)
        ended = await reports.until("the end", lambda seen: seen.status in jobmod.TERMINAL)
        await asyncio.wait_for(follower, 30)  # the end is the last report
        return ended

    ended = asyncio.run(scenario())
    assert (ended.status, ended.result) == (jobmod.COMPLETED, RESULT)


def test_a_stored_end_is_not_replaced_by_a_later_status(
    two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore],
) -> None:
    """A cancel stored by another process wins over the running process's later status change."""
    running, other = two_job_stores
    job = running.create("work", None, as_task=True)
    other.cancel(other.get(job.id, None), "cancelled by the client")
    job.status, job.input_requests = jobmod.INPUT_REQUIRED, ASKED
    running.changed(job)
    assert other.get(job.id, None).status == jobmod.CANCELLED


def test_a_job_nobody_follows_costs_no_message(two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore],
                                               request: pytest.FixtureRequest) -> None:
    running, following = two_job_stores
    if not following.backend.tells_ends:
        pytest.skip("a shared SQLite file has no channel")
    url = request.getfixturevalue("redis_server").url  # (the one both stores share)
    client = redis.Redis.from_url(url, decode_responses=True)
    channel = "nanohubmcp:two:jobs:status"
    watch = client.pubsub()
    try:
        watch.subscribe(channel)
        assert watch.get_message(timeout=10)["type"] == "subscribe"
        job = running.create("work", None, as_task=True)
        running.progress(job.id, 1, None, "unwatched")
        job.status, job.input_requests = jobmod.INPUT_REQUIRED, ASKED
        running.changed(job)
        # Messages of one channel arrive in the order published: a message for the changes above
        # would come before this one.
        client.publish(channel, "marker")
        assert watch.get_message(timeout=10)["data"] == "marker"

        following.backend.awaited(job.id, follow=True)  # (what a follower's read does)
        running.progress(job.id, 2, None, "watched")
        assert watch.get_message(timeout=10)["data"] == job.id
    finally:
        watch.close()
        client.close()
