"""Of two processes keeping one job's large data at once, only the one whose reservation of the job record's
``kept_data`` was stored first writes a copy (:mod:`nanohubmcp.server.executors.kept_slot`); the other waits
for its link and answers it. A reservation whose process died is taken over; one released (the data not
written) leaves the slot free.

Before (review r24 MED-2): each process wrote a full copy before the conditional write chose the one stored,
and the losing copy made room under the owner's share first, evicting the owner's other, older results for a
copy then dropped. A reservation in the record was read as a link (an IndexError).

Two job stores on one real redis-server, and on one SQLite state directory, stand for two processes, each with
its own result store over one results folder.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from reached_records import Reached
from redis_server import RedisServer, find_redis, job_stores_let_go, wake_job_watchers
from support import installed, wait_until

from nanohubmcp.server.executors import kept_slot
from nanohubmcp.server.executors.polled_data import PolledData, job_owner
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.store import ResultStore
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(120)

DATA = {"y": list(range(18_000))}  # ~107 KB of JSON
OPTIONS = ResultOptions(max_inline_bytes=4096)


def _kept_files(state: Path) -> list[Path]:
    return sorted(state.rglob("*.meta.json"))


def _stores(state: Path, share: int = 1 << 30) -> list[ResultStore]:
    return [ResultStore(600.0, directory=lambda: str(state), max_bytes_per_owner=share) for _ in range(2)]


def _done_job(store: jobmod.JobStore) -> jobmod.Job:
    job = store.create("big", "session-key")
    job.finish(jobmod.COMPLETED, result={"content": []})
    return job


@dataclasses.dataclass
class _Racing:
    """Two processes' job stores and result stores (over one results folder, ``state``), and a done job."""

    jobs: tuple[jobmod.JobStore, jobmod.JobStore]
    stores: list[ResultStore]
    job: jobmod.Job
    state: Path


@pytest.fixture
def racing(two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore], tmp_path: Path) -> _Racing:
    state = tmp_path / "kept"
    return _Racing(two_job_stores, _stores(state), _done_job(two_job_stores[0]), state)


def _reads(store: ResultStore, blocks: list[dict[str, Any]] | None, owner: str | None) -> bool:
    return blocks is not None and store.read(blocks[1]["uri"], owner) is not None


def test_two_keeps_at_once_write_one_copy_and_evict_none_of_the_owners_other_results(
        two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore], tmp_path: Path) -> None:
    first, second = two_job_stores
    state = tmp_path / "kept"
    stores = _stores(state, share=250_000)  # the owner's earlier result and one copy fit; not two copies
    job = _done_job(first)
    owner = job_owner(job)
    earlier = stores[0].keep("e" * 100_000, "text/plain", ".txt", owner)
    together = threading.Barrier(2)
    meet_here, meet_there = Reached(first.backend, together), Reached(second.backend, together)
    here = PolledData(stores[0], OPTIONS, lambda: meet_here)  # type: ignore[arg-type,return-value]
    there = PolledData(stores[1], OPTIONS, lambda: meet_there)  # type: ignore[arg-type,return-value]
    answered: dict[str, Any] = {}
    racing = threading.Thread(target=lambda: answered.update(here=here.kept(job, lambda: DATA)))
    racing.start()
    answered["there"] = there.kept(job, lambda: DATA)
    racing.join(60)
    assert answered["here"] == answered["there"] is not None  # one link, answered by both
    for store in stores:
        assert _reads(store, answered["here"], owner)
        assert store.read(earlier, owner) is not None  # before: evicted by the losing copy, dropped at once
    assert len(_kept_files(state)) == 2  # the earlier result and one copy
    stored = first.backend.summaries([job.id], ("id", "kept_data"))[0]["kept_data"]
    assert stored == answered["here"]


def test_a_keep_waits_for_the_reserving_process_and_answers_its_link(racing: _Racing) -> None:
    (first, second), stores, job, state = racing.jobs, racing.stores, racing.job, racing.state
    reservation = [{"pending": "the-other-process", "since": time.time()}]
    assert second.backend.keep_data(job.id, reservation, None) == reservation  # the other process reserved
    reads = Reached(first.backend)
    here = PolledData(stores[0], OPTIONS, lambda: reads)  # type: ignore[arg-type,return-value]
    answered: dict[str, Any] = {}
    waiting = threading.Thread(target=lambda: answered.update(here=here.kept(job, lambda: DATA)))
    waiting.start()
    wait_until(lambda: reads.reads >= 3, "the keep to read the record again while the reservation holds")
    assert not _kept_files(state)  # nothing written while another process holds the slot
    owner = job_owner(job)
    uri = stores[1].keep(str(DATA), "application/json", ".json", owner, job=job.id)  # the other's copy, then link
    blocks = [{"type": "text", "text": "the other's note"}, {"type": "resource_link", "uri": uri}]
    assert second.backend.keep_data(job.id, blocks, reservation) == blocks
    waiting.join(60)
    assert answered["here"] == blocks
    assert len(_kept_files(state)) == 1


@pytest.mark.parametrize("how", ["aged", "unchanged"])
def test_a_stale_reservation_is_taken_over(racing: _Racing, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # "aged": its time is older than RESERVED_SECONDS (its process died long ago); "unchanged": it stayed as long
    # while this keep waited for it (its process died as it reserved, or its clock runs ahead).
    (first, second), stores, job, state = racing.jobs, racing.stores, racing.job, racing.state
    if how == "aged":
        since = time.time() - kept_slot.RESERVED_SECONDS - 1
    else:
        monkeypatch.setattr(kept_slot, "RESERVED_SECONDS", 0.5)
        since = time.time() + 3600
    reservation = [{"pending": "a-dead-process", "since": since}]
    assert second.backend.keep_data(job.id, reservation, None) == reservation
    here = PolledData(stores[0], OPTIONS, lambda: first.backend)
    answered = here.kept(job, lambda: DATA)
    assert _reads(stores[0], answered, job_owner(job))  # before: an IndexError (the reservation read as a link)
    assert first.backend.summaries([job.id], ("id", "kept_data"))[0]["kept_data"] == answered
    there = PolledData(stores[1], OPTIONS, lambda: second.backend)
    assert there.kept(job, lambda: pytest.fail("kept again")) == answered
    assert len(_kept_files(state)) == 1


def test_a_link_that_no_longer_reads_is_replaced(racing: _Racing) -> None:
    (first, second), stores, job = racing.jobs, racing.stores, racing.job
    there = PolledData(stores[1], OPTIONS, lambda: second.backend)
    gone = there.kept(job, lambda: DATA)
    assert gone is not None
    stores[1].drop(gone[1]["uri"])
    here = PolledData(stores[0], OPTIONS, lambda: first.backend)
    answered = here.kept(job, lambda: DATA)
    assert answered is not None
    assert answered != gone
    assert _reads(stores[1], answered, job_owner(job))
    assert second.backend.summaries([job.id], ("id", "kept_data"))[0]["kept_data"] == answered


class _GoesAwayAtTheLink:
    """A process's job-store back end whose Redis stops as the keep stores its link (its second conditional
    write, after the reservation): the link is not stored, the reservation stays."""

    def __init__(self, backend: Any, redis: RedisServer) -> None:
        self.backend = backend
        self.redis = redis
        self.writes = 0

    def summaries(self, ids: Any, names: Any) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.backend.summaries(ids, names)
        return found

    def keep_data(self, *args: Any) -> Any:
        self.writes += 1
        if self.writes == 2:
            self.redis.stop()
        return self.backend.keep_data(*args)


def test_a_reservation_the_store_went_away_under_is_taken_over_at_once_by_its_process(tmp_path: Path) -> None:
    redis = RedisServer(installed(find_redis(), "redis-server"), tmp_path, persistent=True).start()
    try:
        with job_stores_let_go(wake=lambda: wake_job_watchers(redis.url)):
            jobs = jobmod.JobStore(name="away", shared=parse(redis.url))
            jobs.open()
            try:
                job = _done_job(jobs)
                records = _GoesAwayAtTheLink(jobs.backend, redis)
                store = _stores(tmp_path / "kept")[0]
                here = PolledData(store, OPTIONS, lambda: records)  # type: ignore[arg-type,return-value]
                answered = here.kept(job, lambda: DATA)  # answered, set aside: Redis went away
                assert answered is not None
                redis.start()
                started = time.monotonic()
                assert here.kept(job, lambda: pytest.fail("kept again")) == answered
                assert time.monotonic() - started < kept_slot.RESERVED_SECONDS / 2  # before: waited for it to age
                assert jobs.backend.summaries([job.id], ("id", "kept_data"))[0]["kept_data"] == answered
            finally:
                jobs.backend.close()
                if jobs.runs.locks is not None:
                    jobs.runs.locks.release()
    finally:
        redis.stop()
