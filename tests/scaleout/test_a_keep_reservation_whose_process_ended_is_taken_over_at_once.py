"""A keep reservation in a job's record (:mod:`nanohubmcp.server.executors.kept_slot`) names the process that
stored it (host, process id, start time: :mod:`nanohubmcp.server.executors.reserver`); a keep on the same host
takes it over at once when that process is no longer running (gone, or its id reused). One of another host's
process still holds until it is :data:`~nanohubmcp.server.executors.kept_slot.RESERVED_SECONDS` old.

Before (review r25 MED-1): a reservation left by a process that died (a ``--workers`` worker killed mid-keep)
made every poll of the job wait until it was 60 s old, on a thread of the event loop's default executor.

The job store is real SQLite, shared with a real second process that reserves through it and is killed.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from reached_records import Reached
from support import wait_until

from nanohubmcp.server.executors import kept_slot, reserver
from nanohubmcp.server.executors.polled_data import PolledData, job_owner
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.server.results.options import ResultOptions
from nanohubmcp.server.results.store import ResultStore

pytestmark = pytest.mark.timeout(120)

DATA = {"y": list(range(18_000))}  # ~107 KB of JSON: kept, not answered inline
OPTIONS = ResultOptions(max_inline_bytes=4096)
AT_ONCE = kept_slot.RESERVED_SECONDS / 6  # far below the bound a stale reservation waits for

RESERVES = """
import sys
from nanohubmcp.server.executors.kept_slot import KeptSlot
from nanohubmcp.server.jobs import service as jobmod
jobs = jobmod.JobStore(name="dead", state_dir=sys.argv[1])
jobs.open()
slot = KeptSlot(jobs.backend, sys.argv[2], lambda blocks: True)
assert slot.claim(None) is None and slot.reservation is not None
print("reserved", flush=True)
sys.stdin.read()  # (held until killed)
"""


@pytest.fixture
def jobs(tmp_path: Path) -> Any:
    store = jobmod.JobStore(name="dead", state_dir=tmp_path / "state")
    store.open()
    try:
        yield store
    finally:
        store.backend.close()
        if store.runs.locks is not None:
            store.runs.locks.release()


def _done_job(store: jobmod.JobStore) -> jobmod.Job:
    job = store.create("big", "session-key")
    job.finish(jobmod.COMPLETED, result={"content": []})
    return job


def _kept_data(store: jobmod.JobStore, job: jobmod.Job) -> Any:
    return store.backend.summaries([job.id], ("id", "kept_data"))[0]["kept_data"]


def _polled(store: jobmod.JobStore, tmp_path: Path) -> PolledData:
    results = ResultStore(600.0, directory=lambda: str(tmp_path / "kept"), max_bytes_per_owner=1 << 30)
    return PolledData(results, OPTIONS, lambda: store.backend)


def _timed_keep(polled: PolledData, job: jobmod.Job) -> tuple[Any, float]:
    started = time.monotonic()
    answered = polled.kept(job, lambda: DATA)
    return answered, time.monotonic() - started


def test_a_reservation_of_a_killed_process_is_taken_over_at_once(jobs: jobmod.JobStore, tmp_path: Path) -> None:
    job = _done_job(jobs)
    other = subprocess.Popen([sys.executable, "-c", RESERVES, str(tmp_path / "state"), job.id],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ))
    try:
        assert other.stdout is not None
        assert other.stdout.readline() == b"reserved\n"
        held = _kept_data(jobs, job)
        assert kept_slot.pending(held)
        assert held[0]["pid"] == other.pid
        assert held[0]["host"] == socket.gethostname()
    finally:
        other.send_signal(signal.SIGKILL)
        other.wait(30)
    answered, took = _timed_keep(_polled(jobs, tmp_path), job)
    assert kept_slot.linked(answered)
    assert took < AT_ONCE  # before: until the reservation was RESERVED_SECONDS old
    assert _kept_data(jobs, job) == answered


@pytest.mark.skipif(reserver.holder()["start"] is None, reason="no /proc: a process's start time is not known")
def test_a_reservation_whose_process_id_now_names_another_process_is_taken_over_at_once(
        jobs: jobmod.JobStore, tmp_path: Path) -> None:
    job = _done_job(jobs)
    running = reserver.holder()  # this process, alive: the id of the reservation's process reused by it
    planted = [{"pending": "a-process-before", "since": time.time(), **running, "start": running["start"] - 1}]
    assert jobs.backend.keep_data(job.id, planted, None) == planted
    answered, took = _timed_keep(_polled(jobs, tmp_path), job)
    assert kept_slot.linked(answered)
    assert took < AT_ONCE


@pytest.mark.parametrize("holder", [{"host": "another-host"}, {"host": None}], ids=["another-host", "unnamed"])
def test_a_reservation_of_a_process_not_known_to_have_ended_holds(
        jobs: jobmod.JobStore, tmp_path: Path, holder: dict[str, Any]) -> None:
    # Another host's process id says nothing here; a reservation naming no process (an older version's) neither.
    job = _done_job(jobs)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)  # an id that names no process here
    planted = [{"pending": "elsewhere", "since": time.time(), "pid": gone.pid, "start": 1, **holder}]
    assert jobs.backend.keep_data(job.id, planted, None) == planted
    reads = Reached(jobs.backend)
    results = ResultStore(600.0, directory=lambda: str(tmp_path / "kept"), max_bytes_per_owner=1 << 30)
    polled = PolledData(results, OPTIONS, lambda: reads)  # type: ignore[arg-type,return-value]
    answered: dict[str, Any] = {}
    waiting = threading.Thread(target=lambda: answered.update(here=polled.kept(job, lambda: DATA)))
    waiting.start()
    wait_until(lambda: reads.reads >= 4, "the keep to read the record again while the reservation holds")
    assert _kept_data(jobs, job) == planted  # not taken over
    uri = results.keep(str(DATA), "application/json", ".json", job_owner(job), job=job.id)
    blocks = [{"type": "text", "text": "the other host's note"}, {"type": "resource_link", "uri": uri}]
    assert jobs.backend.keep_data(job.id, blocks, planted) == blocks  # the other host's keep completes
    waiting.join(60)
    assert answered["here"] == blocks
