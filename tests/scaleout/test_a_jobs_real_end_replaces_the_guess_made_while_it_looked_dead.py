"""A job's real end replaces the verdict another process guessed while the job's process looked
dead — and only that verdict.

A Redis outage longer than the heartbeat's ttl (10 s) lets a running process's heartbeat lapse;
another process polling the job before the first beats again stores the guess "the server stopped
while this job ran". The job's end is stored only over no end (a cancel stored elsewhere is final),
so the guess used to win over the job's real end, which then came back as the failure on every
process. Now the job's own process replaces that guess with its end; a cancel stays cancelled, a
real end is never replaced by a guess.

Two job stores stand for two processes, on one real redis-server (and, the same rule, on one SQLite
state directory); the lapse is the runner's heartbeat going away (``release()``: what the outage
leaves), so no test waits out the 10 s.
"""

from __future__ import annotations

import pytest

from nanohubmcp.server.jobs import service as jobmod

pytestmark = pytest.mark.timeout(60)

RESULT = {"content": [{"type": "text", "text": "42"}], "isError": False}


@pytest.fixture
def stores(two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore]) -> tuple[jobmod.JobStore, jobmod.JobStore]:
    """``(running, polling)``: the job store of the process running the jobs and another's."""
    return two_job_stores


def looks_dead(store: jobmod.JobStore) -> None:
    """The process's heartbeat lapses (Redis: its key expired during the outage)."""
    runners = store.runs.locks
    assert runners is not None
    runners.release()


def test_the_real_end_replaces_the_guess(stores: tuple[jobmod.JobStore, jobmod.JobStore]) -> None:
    running, polling = stores
    job = running.create("work", None)
    looks_dead(running)
    guessed = polling.get(job.id, None)
    assert (guessed.status, guessed.status_message) == (jobmod.FAILED, jobmod.SERVER_STOPPED)

    job.finish(jobmod.COMPLETED, result=RESULT)  # the process was alive: its function ended
    assert (job.status, job.result) == (jobmod.COMPLETED, RESULT)  # it did not take the guess
    seen = polling.get(job.id, None)
    assert (seen.status, seen.result, seen.status_message) == (jobmod.COMPLETED, RESULT, None)


def test_a_cancel_stays_cancelled_and_a_real_end_stays(stores: tuple[jobmod.JobStore, jobmod.JobStore]) -> None:
    running, polling = stores
    cancelled, ended = running.create("work", None), running.create("work", None)
    polling.cancel(polling.get(cancelled.id, None), "cancelled by the client")
    ended.finish(jobmod.COMPLETED, result=RESULT)
    looks_dead(running)
    cancelled.finish(jobmod.COMPLETED, result=RESULT)  # its own end, after the cancel stored elsewhere
    assert cancelled.status == jobmod.CANCELLED
    assert polling.get(cancelled.id, None).status == jobmod.CANCELLED
    # A real end is no guess: the other process, seeing the runner dead, leaves it as it is.
    seen = polling.get(ended.id, None)
    assert (seen.status, seen.result) == (jobmod.COMPLETED, RESULT)


def test_no_other_process_replaces_a_stored_end(stores: tuple[jobmod.JobStore, jobmod.JobStore]) -> None:
    """Only the job's own process replaces the guess: an end written by another process for it (a
    process that took the job over) is stored over no end only."""
    running, polling = stores
    job = running.create("work", None)
    looks_dead(running)
    assert polling.get(job.id, None).status == jobmod.FAILED
    taken = jobmod.Job(id=job.id, tool="work", owner=None, runner=job.runner)
    taken.store = polling
    taken.finish(jobmod.COMPLETED, result=RESULT)
    assert polling.get(job.id, None).status == jobmod.FAILED
