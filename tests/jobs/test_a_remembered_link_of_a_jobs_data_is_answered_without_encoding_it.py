"""A done job's data kept for its MCP answers (:class:`~nanohubmcp.server.executors.polled_data.PolledData`) is
looked up before anything is made: once remembered, an answer gives the same blocks without making the value or
encoding its JSON again (a poll of a 100 MB result would encode 100 MB each time); a link the store no longer
holds is kept again.

Before: every poll encoded the whole value to JSON, then looked at what it remembered.

A real result store (in memory) and job records (in a memory job store's back end); the value is made by a
function that counts its calls.
"""

from __future__ import annotations

from typing import Any

import pytest

from nanohubmcp.errors import ResultTooLarge
from nanohubmcp.server.executors.polled_data import PolledData
from nanohubmcp.server.jobs.record import COMPLETED, Job
from nanohubmcp.server.jobs.stores import MemoryBackend
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.owners import KeptBy
from nanohubmcp.server.results.store import ResultStore

DATA = {"y": list(range(5_000))}


def stored(*jobs: Job) -> MemoryBackend:
    """A job store's back end holding the records of ``jobs``."""
    records = MemoryBackend()
    for job in jobs:
        records.insert(job.record(), max_total=10, max_per_owner=10)
    return records


def test_a_remembered_link_is_answered_without_making_the_value() -> None:
    store = ResultStore(60.0, max_bytes=1 << 20)
    job = Job("j" * 32, "big", "session-key", status=COMPLETED)
    records = stored(job)
    polled = PolledData(store, ResultOptions(max_inline_bytes=1024), lambda: records)
    made: list[int] = []

    def value() -> Any:
        made.append(1)
        return DATA

    first = polled.kept(job, value)
    assert first is not None
    assert [block["type"] for block in first] == ["text", "resource_link"]
    assert polled.kept(job, value) == first
    assert polled.kept(job, value) == first
    assert len(made) == 1  # made (and encoded) once, at the keep
    assert len(store) == 1
    assert records.summaries([job.id], ["id", "kept_data"])[0]["kept_data"] == first  # stored with its record
    again = PolledData(store, ResultOptions(max_inline_bytes=1024), lambda: records)  # another process's
    assert again.kept(job, value) == first
    assert len(made) == 1


def test_a_link_the_store_no_longer_holds_is_kept_again() -> None:
    store = ResultStore(60.0, max_bytes=40_000, max_bytes_per_owner=40_000)
    job, other = Job("j" * 32, "big", "a", status=COMPLETED), Job("k" * 32, "big", "a", status=COMPLETED)
    records = stored(job, other)
    polled = PolledData(store, ResultOptions(max_inline_bytes=1024), lambda: records)
    first = polled.kept(job, lambda: DATA)
    assert first is not None
    assert polled.kept(other, lambda: DATA) is not None  # the store had room for one: the first was evicted
    again = polled.kept(job, lambda: DATA)
    assert again is not None
    assert again[1]["uri"] != first[1]["uri"]
    assert store.read(again[1]["uri"], "session:a") is not None  # the job's session's (jobs.polled_data.job_owner)
    assert records.summaries([job.id], ["id", "kept_data"])[0]["kept_data"] == again  # the record's replaced


def test_a_stored_link_kept_for_no_job_is_kept_again_for_the_job_and_left_to_expire() -> None:
    # A link an earlier version stored names no job: a reconnected session, which may read the job, could not
    # read it (handlers.kept_reader), so it is kept again, naming the job; the earlier copy is left to expire,
    # so a client holding its link still reads it (it was dropped: "Resource not found"; review r24 NIT-7).
    store = ResultStore(60.0, max_bytes=1 << 20)
    job = Job("j" * 32, "big", "a", status=COMPLETED)
    records = stored(job)
    earlier = store.keep(b'{"y": []}', "application/json", ".json", "session:a")
    old = [{"type": "text", "text": "kept"}, {"type": "resource_link", "uri": earlier, "name": "result.json"}]
    assert records.keep_data(job.id, old, None) == old
    polled = PolledData(store, ResultOptions(max_inline_bytes=1024), lambda: records)
    again = polled.kept(job, lambda: DATA)
    assert again is not None
    assert again[1]["uri"] != earlier
    assert store.kept_by(again[1]["uri"]) == KeptBy("session:a", job.id)
    assert store.read(earlier, "session:a") is not None  # still read by whoever holds it
    assert records.summaries([job.id], ["id", "kept_data"])[0]["kept_data"] == again
    assert polled.kept(job, lambda: DATA) == again


def test_data_that_fit_is_not_made_again_nor_its_record_read() -> None:
    # (review r24 NIT-6: each answer of a done job whose data fits read its record and encoded the value.)
    store = ResultStore(60.0, max_bytes=1 << 20)
    job = Job("j" * 32, "small", "a", status=COMPLETED)
    records = stored(job)
    reads: list[int] = []

    def record_store() -> MemoryBackend:
        reads.append(1)
        return records

    options = ResultOptions(max_inline_bytes=1024)
    polled = PolledData(store, options, record_store)
    made: list[int] = []

    def value() -> Any:
        made.append(1)
        return {"y": 1}

    assert polled.kept(job, value) is None
    assert polled.kept(job, value) is None
    assert polled.kept(job, value) is None
    assert len(made) == 1
    assert len(reads) == 1
    assert len(store) == 0
    options.max_inline_bytes = 4  # a smaller limit now: the same data is over it, kept and linked
    linked = polled.kept(job, value)
    assert linked is not None
    assert [block["type"] for block in linked] == ["text", "resource_link"]


def test_data_too_large_to_keep_leaves_the_records_slot_free() -> None:
    # A keep reserves the record's slot before it writes (executors.kept_slot): refused, it gives the slot up, so
    # another keep of the job (a process whose store keeps more) does not wait for a reservation nobody completes.
    job = Job("j" * 32, "big", "a", status=COMPLETED)
    records = stored(job)
    small = PolledData(ResultStore(60.0, max_bytes=10_000), ResultOptions(max_inline_bytes=1024), lambda: records)
    with pytest.raises(ResultTooLarge):
        small.kept(job, lambda: DATA)
    assert records.summaries([job.id], ["id", "kept_data"])[0]["kept_data"] is None
    large = PolledData(ResultStore(60.0, max_bytes=1 << 20), ResultOptions(max_inline_bytes=1024), lambda: records)
    kept = large.kept(job, lambda: DATA)
    assert kept is not None
    assert records.summaries([job.id], ["id", "kept_data"])[0]["kept_data"] == kept


def test_data_too_large_to_keep_is_refused_again_without_making_it_while_the_limits_hold() -> None:
    # (review r25 LOW-3: each poll of a job refused for its size made and encoded the whole value again: ~0.25 s
    # of CPU for 6.5 MB, on a thread, per poll of a client looping on its own refused job.)
    job = Job("j" * 32, "big", "a", status=COMPLETED)
    records = stored(job)
    store = ResultStore(60.0, max_bytes=10_000)
    polled = PolledData(store, ResultOptions(max_inline_bytes=1024), lambda: records)
    made: list[int] = []

    def value() -> Any:
        made.append(1)
        return DATA

    refusals = []
    for _ in range(3):
        with pytest.raises(ResultTooLarge) as refused:
            polled.kept(job, value)
        refusals.append(str(refused.value))
    assert len(made) == 1
    assert len(set(refusals)) == 1
    assert "10000" in refusals[0]
    store.max_bytes = 1 << 20  # (a limit raised since: made and kept this time)
    assert polled.kept(job, value) is not None
    assert len(made) == 2
