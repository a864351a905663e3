"""The SQLite result cache knows its bytes, in all and per owner, without summing every entry on a put.

Found with review r40 R40-2's fix: every put summed ``size`` over all entries (and an owner's), so a put slowed
as the cache grew (~1 ms at 3,000 entries, ~34 ms at 20,000 on a busy host; a 256 MiB cache of small results holds
hundreds of thousands). The totals are now kept by triggers in the file (every process writing it keeps them) and
counted again when a process opens it. Checked here: the totals equal the entries' sums through puts, a replaced
key, evictions by share and by the whole, expiry, a tool's entries dropped, and a reopen; and no statement of a
put sums the entries.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from nanohubmcp.server.provenance.cache_store import DB_FILE, SQLiteCache


def _sums(path: Path) -> dict[str, int]:
    db = sqlite3.connect(path)
    try:
        whole = {"*": db.execute("SELECT coalesce(sum(size), 0) FROM entries").fetchone()[0]}
        owners = {("-" if owner is None else "=" + owner): size
                  for owner, size in db.execute("SELECT owner, sum(size) FROM entries GROUP BY owner")}
        return whole | owners
    finally:
        db.close()


def _totals(path: Path) -> dict[str, int]:
    db = sqlite3.connect(path)
    try:
        return {owner: size for owner, size in db.execute("SELECT owner, bytes FROM totals") if size}
    finally:
        db.close()


def test_the_totals_follow_the_entries_and_a_put_sums_nothing(tmp_path: Path) -> None:
    cache = SQLiteCache(str(tmp_path))
    path = tmp_path / DB_FILE
    statements: list[str] = []
    cache._db.set_trace_callback(statements.append)
    for i in range(40):  # alice past her share (3,000 bytes), then the whole past 6,000
        cache.put(f"a{i}", "sim", "c1", "x" * 100, 500, 1e12, 6_000, float(i), owner="alice", share=3_000)
        cache.put(f"b{i}", "fit", "c1", "y" * 100, 300, 1e12, 6_000, float(i), owner=None, share=3_000)
    cache.put("a39", "sim", "c1", "x" * 10, 700, 1e12, 6_000, 50.0, owner="alice", share=3_000)  # replaced
    cache.put("gone", "sim", "c1", "z", 200, 10.0, 6_000, 60.0, owner="bob", share=3_000)  # expired at once
    cache.put("c0", "sim", "c1", "z", 200, 1e12, 6_000, 61.0, owner="carol", share=3_000)  # purges "gone"
    assert not any("sum(" in statement.lower() for statement in statements), statements
    assert _totals(path) == _sums(path)
    assert _sums(path)["*"] <= 6_000
    assert _sums(path)["=alice"] <= 3_000
    assert cache.total()[1] == _sums(path)["*"]
    cache.drop_tool("sim", keep_code="c2")
    assert _totals(path) == _sums(path)
    cache.close()

    db = sqlite3.connect(path)  # a writer that kept no totals (an earlier version's process)
    db.execute("DROP TRIGGER entries_added")
    db.execute("INSERT INTO entries (key, tool, code, result, size, expires, used, stored, owner) "
               "VALUES ('old', 'fit', 'c0', '{}', 900, 1e12, 0, 0, 'dave')")
    db.commit()
    db.close()
    reopened = SQLiteCache(str(tmp_path))  # counted again, its trigger made again
    assert _totals(path) == _sums(path)
    reopened.put("d1", "fit", "c0", "w", 100, 1e12, 6_000, 70.0, owner="dave", share=3_000)
    assert _totals(path) == _sums(path)
    assert _sums(path)["=dave"] == 1_000
    reopened.close()
