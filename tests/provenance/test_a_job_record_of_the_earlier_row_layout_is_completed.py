"""A job's record written by the earlier row layout (every field in a column of its own) and completed
by this version (a server upgraded and restarted while the job ran) reads the job's end: the status,
executor and resource links of the end, the thread and arguments of the start."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from nanohubmcp.server.provenance.capture import JobEnd, build
from nanohubmcp.server.provenance.record_db import SQLiteRecords
from nanohubmcp.server.provenance.rows import CallRow, view


def test_an_earlier_layout_job_record_reads_its_end(tmp_path: Path) -> None:
    now = time.time()
    started = CallRow(
        id="run000abcdefabcdefabcdef", owner="alice", tool="slow", facts=None, created=now, expires=now + 60,
        principal="alice", session=None, request_id=7, protocol_version="2025-11-25", trace_id=None, span_id=None,
        started=now, ended=None, executor="worker-pool", thread="nanohubmcp-worker-1", status="working",
        result_digest=None, result=None, resource_links=None, cache=None, arguments='{"n":3}',
        extra='{"job_id":"j-1","handle_digest":"sha256:00"}',
    )
    store = SQLiteRecords(str(tmp_path))
    store.put_many([started], {}, 100)
    job = SimpleNamespace(
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
