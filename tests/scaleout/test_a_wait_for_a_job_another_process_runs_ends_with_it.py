"""A wait for the end of a job another process runs (``JobStore.ended``: ``tasks/result``, a 2026
listen naming a task) ends when that process stores the end, or when its process died.

Two job stores stand for two processes, on one real redis-server (where the storing process tells
the waiting one through the channel ``jobs:end``) and on one SQLite state directory (where the
waiting process reads the record every second). With Redis the wait's own reads are put off for an
hour here, so only the notice can end it. The process dying is its heartbeat going away
(``release()``), as in test_a_jobs_real_end_replaces_the_guess_made_while_it_looked_dead.py.
"""

from __future__ import annotations

import asyncio

import pytest

from nanohubmcp.server.jobs import elsewhere
from nanohubmcp.server.jobs import service as jobmod

pytestmark = pytest.mark.timeout(60)

RESULT = {"content": [{"type": "text", "text": "42"}], "isError": False}


@pytest.fixture
def stores(two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore]) -> tuple[jobmod.JobStore, jobmod.JobStore]:
    """``(running, waiting)``: the job store of the process running the jobs and another's."""
    return two_job_stores


async def waiting_for(store: jobmod.JobStore, job_id: str) -> asyncio.Future[jobmod.Job]:
    """``store.ended`` of the job as ``store`` reads it, once the wait made its first read."""
    seen = store.get(job_id, None)
    assert seen.status == jobmod.WORKING
    waiter = asyncio.ensure_future(store.ended(seen))
    await asyncio.sleep(0)  # one turn: its first read is made, it waits
    assert not waiter.done()
    return waiter


def test_the_wait_ends_when_the_other_process_stores_the_end(
    stores: tuple[jobmod.JobStore, jobmod.JobStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    running, waiting = stores
    if waiting.backend.tells_ends:
        monkeypatch.setattr(elsewhere, "TOLD_LOOK_SECONDS", 3600.0)  # only the store's notice ends it
    job = running.create("work", None)

    async def scenario() -> jobmod.Job:
        waiter = await waiting_for(waiting, job.id)
        job.finish(jobmod.COMPLETED, result=RESULT)
        return await asyncio.wait_for(waiter, 30)

    ended = asyncio.run(scenario())
    assert ended is not job
    assert (ended.status, ended.result) == (jobmod.COMPLETED, RESULT)


def test_the_wait_ends_with_the_verdict_on_a_job_whose_process_died(
    stores: tuple[jobmod.JobStore, jobmod.JobStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    running, waiting = stores
    monkeypatch.setattr(elsewhere, "TOLD_LOOK_SECONDS", 0.05)  # (no notice: nobody else stores its end)
    job = running.create("work", None)

    async def scenario() -> jobmod.Job:
        waiter = await waiting_for(waiting, job.id)
        runners = running.runs.locks
        assert runners is not None
        runners.release()  # the running process's heartbeat lapses: it is dead
        return await asyncio.wait_for(waiter, 30)

    ended = asyncio.run(scenario())
    assert (ended.status, ended.status_message) == (jobmod.FAILED, jobmod.SERVER_STOPPED)
