"""Rows written in one batch read back exactly as they were made, whichever of their columns are
empty: the store leaves out of a statement the columns that are None in all of its rows (binding a
None costs more than any value), so rows that differ in which columns they fill must not borrow
each other's values, and a row replaced by one with fewer columns filled (a job's record when the
job ends) must not keep the old values."""

from __future__ import annotations

import time
from pathlib import Path

from nanohubmcp.server.provenance.record_db import ROWS_PER_STATEMENT, SQLiteRecords
from nanohubmcp.server.provenance.rows import CallRow


def row(index: int, **filled: object) -> CallRow:
    now = time.time()
    base = CallRow(
        id=f"run000{index:018d}", owner=None, tool="add", facts=None, created=now, expires=now + 60,
        principal=None, session=None, request_id=index, protocol_version="2025-11-25", trace_id=None,
        span_id=None, started=now, ended=now, executor="event-loop", thread="MainThread", status="completed",
        result_digest="sha256:" + "ab" * 32, result='{"isError":false}', resource_links=None, cache=None,
        arguments='{"a":1}', extra=None,
    )
    return base._replace(**filled)


def test_rows_of_one_batch_keep_their_own_columns(tmp_path: Path) -> None:
    store = SQLiteRecords(str(tmp_path))
    rows = [row(index) for index in range(ROWS_PER_STATEMENT + 5)]  # two statements
    rows[3] = row(3, trace_id="0" * 32, span_id="1" * 16, cache="hit", owner="alice", principal="alice")
    rows[ROWS_PER_STATEMENT + 2] = row(ROWS_PER_STATEMENT + 2, extra='{"job_id":"j"}', resource_links='["x:/1"]')
    rows[7] = row(7, request_id=None, session="s-1", owner="s-1")
    store.put_many(rows, {}, 1000)
    for made in rows:
        assert store.get_row(made.id) == made

    # a job's record completed: the new row leaves columns empty that the first one filled
    done = rows[ROWS_PER_STATEMENT + 2]._replace(extra=None, resource_links=None, status="failed")
    store.put_many([done, row(999)], {}, 1000)
    assert store.get_row(done.id) == done
    assert store.get_row(rows[3].id) == rows[3]
    store.close()


def test_a_value_all_rows_of_a_statement_share_is_written_to_each(tmp_path: Path) -> None:
    """A column holding one value in every row of a statement is bound once (a numbered parameter
    each row refers to); a row that differs in it keeps its own value, in either statement."""
    store = SQLiteRecords(str(tmp_path))
    now = time.time()
    same = {"created": now, "expires": now + 60, "started": now, "ended": now + 1}
    rows = [row(index, owner="s-1", session="s-1", **same) for index in range(ROWS_PER_STATEMENT + 3)]
    rows[5] = row(5, owner="s-2", session="s-2", thread="worker-1", **same)  # differs in three columns
    rows[ROWS_PER_STATEMENT + 1] = row(ROWS_PER_STATEMENT + 1, status="failed", **same)
    store.put_many(rows, {}, 1000)
    for made in rows:
        assert store.get_row(made.id) == made
    alike = [row(1000 + index, **same) for index in range(3)]  # every column shared but the id and request id
    store.put_many(alike, {}, 1000)
    for made in alike:
        assert store.get_row(made.id) == made
    store.close()
