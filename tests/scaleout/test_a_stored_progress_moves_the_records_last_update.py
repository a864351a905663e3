"""A job's progress stored in the job store moves its record's ``updated`` (a task's ``lastUpdatedAt``), so another
process reading the record — a server restarted while the stopping one still waits for the job — never answers
an older ``lastUpdatedAt`` than the running process did; a progress reported after the job's end leaves it alone.

Trial57 F3: one poll answered ``lastUpdatedAt`` 10:53:52.810 (the running process, from memory), the next, from
the restarted process reading the record, 10:53:51.605: the stored progress did not store its time. Every back
end: in memory, one SQLite file, a real redis-server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(params=["memory", "sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[jobmod.JobStore]:
    if request.param == "redis":
        made = jobmod.JobStore(60.0, name="updated", shared=parse(request.getfixturevalue("redis_server").url))
    else:
        made = jobmod.JobStore(60.0, name="updated", state_dir=tmp_path, kind=request.param)
    yield made
    made.backend.close()
    if made.runs.locks is not None:
        made.runs.locks.release()


def test_a_stored_progress_moves_updated_and_a_late_one_does_not(store: jobmod.JobStore) -> None:
    job = store.create("work", "s1")
    created = store.backend.load(job.id)["updated"]
    store.progress(job.id, 12, 40, "12/40")
    stored = store.backend.load(job.id)
    assert (stored["progress_message"], stored["updated"]) == ("12/40", job.updated)  # before: the creation's time
    assert job.updated > created
    job.finish(jobmod.COMPLETED, result={"content": []})
    store.progress(job.id, 40, 40, "40/40")
    assert store.backend.load(job.id)["updated"] == job.finished_at
