"""A job's record reads the job's end once completed (the status, executor and resource links of the end,
the thread and arguments of the start), whether its row has every field in a column of its own or most
of them in its ``extra`` JSON (rows written by 45f43f6, read and completed by this version)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from nanohubmcp.server.provenance.capture import build
from nanohubmcp.server.provenance.handover import JobEnd
from nanohubmcp.server.provenance.record_db import SQLiteRecords
from nanohubmcp.server.provenance.rows import CallRow, view

PACKED = (
    '{"request_id":7,"protocol_version":"2025-11-25","executor":"worker-pool","status":"working",'
    '"arguments":{"n":3},"where":{"thread":"nanohubmcp-worker-1"},"principal":"alice","job_id":"j-1",'
    '"handle_digest":"sha256:00"}'
)


@pytest.mark.parametrize("packed", [False, True], ids=["columns", "extra"])
def test_a_job_record_reads_its_end(tmp_path: Path, packed: bool) -> None:
    now = time.time()
    started = CallRow(
        id="run000abcdefabcdefabcdef", owner="alice", tool="slow", facts=None, created=now, expires=now + 60,
        principal="alice", session=None, request_id=7, protocol_version="2025-11-25", trace_id=None, span_id=None,
        started=now, ended=None, executor="worker-pool", thread="nanohubmcp-worker-1", status="working",
        result_digest=None, result=None, resource_links=None, cache=None, arguments='{"n":3}',
        extra='{"job_id":"j-1","handle_digest":"sha256:00"}',
    )
    if packed:
        started = CallRow(started.id, "alice", "slow", None, now, now + 60, started=now, extra=PACKED)
    store = SQLiteRecords(str(tmp_path))
    store.put_many([started], {}, 100)
    job = SimpleNamespace(
        id="j-1", tool="slow", owner=None, principal="alice", principal_digest=None, arguments={"n": 3}, created=now,
        status="completed", finished_at=now + 1, executor="threads", executor_ref=None, where={"worker": "w"},
        task_meta=dict, status_message=None,
        result={"content": [{"type": "resource_link", "uri": "file:///out.csv", "name": "out"}], "isError": False},
    )
    made = build(JobEnd(started.id, job), store.get_row, now + 1, now + 61)  # type: ignore[arg-type]
    assert made is not None
    store.put_many([made[0]], {}, 100)
    stored = store.get_row(started.id)
    assert stored is not None
    record = view(stored, None)
    assert record["status"] == "completed"
    assert record["executor"] == "threads"
    assert record["resource_links"] == ["file:///out.csv"]
    assert record["where"]["thread"] == "nanohubmcp-worker-1"
    assert record["where"]["worker"] == "w"
    assert record["arguments"] == {"n": 3}
    assert record["job_id"] == "j-1"
    assert record["request_id"] == 7
    assert record["result"]["content"][0]["uri"] == "file:///out.csv"
    store.close()
