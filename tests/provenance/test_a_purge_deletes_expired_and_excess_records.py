"""A purge of the SQLite records deletes the expired rows and the oldest beyond the bound, and
reads only what it deletes: rows are written in order and expire in that order, so it deletes
from the oldest up to the first row that has not expired, and the bound by the newest row's
``seq``. An expired row behind one that has not expired (written by a server with a longer TTL)
is left to the sweep, which deletes expired rows wherever they are; it reads as missing meanwhile."""

from __future__ import annotations

import time
from pathlib import Path

from nanohubmcp.server.provenance.record_db import SQLiteRecords
from nanohubmcp.server.provenance.records import ProvenanceStore
from nanohubmcp.server.provenance.rows import CallRow

NOW = 1_000_000.0


def row(index: int, expires: float) -> CallRow:
    return CallRow(id=f"run000{index:018d}", owner=None, tool="add", facts=None, created=NOW - 100 + index,
                   expires=expires, status="completed", arguments='{"a":1}')


def stored(store: SQLiteRecords) -> list[int]:
    found = store._db.execute("SELECT id FROM calls ORDER BY seq").fetchall()
    return [int(record_id[6:]) for (record_id,) in found]


def test_the_expired_oldest_rows_go_and_the_rest_stay(tmp_path: Path) -> None:
    store = SQLiteRecords(str(tmp_path))
    store.put_many([row(index, NOW - 10 + index) for index in range(20)], {}, 1000)  # 0-9 expired at NOW
    assert store.purge(NOW, 1000) == 10
    assert stored(store) == list(range(10, 20))
    assert store.purge(NOW, 1000) == 0
    assert store.purge(NOW + 100, 1000) == 10  # all expired
    assert stored(store) == []
    store.close()


def test_the_bound_keeps_the_newest_rows(tmp_path: Path) -> None:
    store = SQLiteRecords(str(tmp_path))
    for start in range(0, 30, 10):  # three batches
        store.put_many([row(index, NOW + 60) for index in range(start, start + 10)], {}, 1000)
    assert store.purge(NOW, 12) == 18
    assert stored(store) == list(range(18, 30))
    store.put_many([row(30, NOW + 60)], {}, 1000)
    assert store.purge(NOW, 12) == 1
    assert stored(store) == list(range(19, 31))
    # a row replaced (a job's record completed) moves to the newest; its old seq no longer holds a row
    store.put_many([row(19, NOW + 70)], {}, 1000)
    assert stored(store) == [*range(20, 31), 19]
    assert store.purge(NOW, 12) == 0
    assert store.purge(NOW, 11) == 1  # at most 11 kept: the oldest goes
    assert stored(store) == [*range(21, 31), 19]
    store.close()


def test_an_expired_row_behind_a_live_one_goes_at_the_sweep(tmp_path: Path) -> None:
    store = SQLiteRecords(str(tmp_path))
    # a row of a server with a longer TTL, then rows of a shorter one that expire first
    store.put_many([row(0, NOW + 600)] + [row(index, NOW - 1) for index in range(1, 5)], {}, 1000)
    assert store.purge(NOW, 1000) == 0  # the first row has not expired: the purge stops there
    assert stored(store) == [0, 1, 2, 3, 4]
    assert store.purge(NOW, 1000, sweep=True) == 4
    assert stored(store) == [0]
    store.close()


def test_the_store_sweeps_at_its_first_purge(tmp_path: Path) -> None:
    now = time.time()
    records = ProvenanceStore(3600.0, lambda: str(tmp_path))
    backend = records.backend
    assert isinstance(backend, SQLiteRecords)
    backend.put_many([row(0, now + 600)] + [row(index, now - 1) for index in range(1, 4)], {}, 1000)
    backend.put_many([row(4, now + 600)], {}, 1000)
    assert records.get(row(1, now).id, None) is None  # an expired record reads as missing before any purge
    records.writes.write([])  # a batch: the purge is due (none yet) and is a sweep
    assert stored(backend) == [0, 4]
    records.close()
