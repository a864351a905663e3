#!/usr/bin/env python3
"""What writing a provenance record's row costs inside SQLite and its binding, per layout: instructions a row of
``SQLiteRecords.put_many`` (256 rows a batch, as the writer writes them), counted by exp-bbv over two run lengths
(8 and 40 batches; the difference ÷ 8,192 rows), for the store as it is and for variants of its schema, statement
and settings, each a scratch change made in this process only. Not a test: nothing asserts a figure.

    PYTHONPATH=<checkout> .venv/bin/python bench/record_sql_cost.py                 # every variant
    PYTHONPATH=<checkout> .venv/bin/python bench/record_sql_cost.py base no-id-index

The rows are the seam's call (``bench/seam_instructions.py``: ``add(a=1.5, b=2.25)`` in one session, its
record's 16 filled columns), each with its own id (a run of 1,024 ids a 6-character prefix, as
``RecordIds`` mints them), request id and times; ``none`` makes the rows and writes nothing (the floor to
subtract). A variant's figure minus ``base``'s is its price a row. Variants (bench/provenance.md, twenty-third
pass): the two indexes left out (``id``'s UNIQUE, ``calls_by_owner``), a plain ``INSERT``, ``id`` indexed but
not UNIQUE, ``id``'s index on an expression (its 8 characters past the run), pages of 1, 8 or 16 KiB (a new
file), a 16 MB page cache, ``synchronous=OFF``, ``locking_mode=EXCLUSIVE``, no WAL auto-checkpoint, 32, 128 or
256 rows a statement, a 24-character owner, the 8 columns the row leaves empty gone from the table, and a
``WITHOUT ROWID`` table keyed by ``id`` (``seq`` a column with an index of its own).
"""

from __future__ import annotations

import base64
import os
import sqlite3
import sys
import tempfile
import time

from seam_instructions import count  # (exp-bbv over every thread of `this script --child VARIANT BATCHES`)

LOW, HIGH = 8, 40
VARIANTS = (
    "none", "base", "no-id-index", "no-owner-index", "no-indexes", "plain-insert", "nonunique-id", "id-expression",
    "page-1k", "page-8k", "page-16k", "cache-16m", "sync-off", "exclusive-lock", "no-autocheckpoint",
    "rows-32", "rows-128", "rows-256", "short-owner", "fewer-columns", "without-rowid",
)
OWNER_INDEX = "CREATE INDEX IF NOT EXISTS calls_by_owner ON calls(owner, seq);"
UNIQUE_ID = "id TEXT NOT NULL UNIQUE"
EMPTY_COLUMNS = ("principal TEXT, ", "trace_id TEXT, span_id TEXT, ", "result_digest TEXT, ",
                 "resource_links TEXT, cache TEXT, ", "extra TEXT,\n    body TEXT")


def schema_of(variant: str, schema: str) -> str:
    if variant in ("no-id-index", "no-indexes", "nonunique-id", "id-expression"):
        schema = schema.replace(UNIQUE_ID, "id TEXT NOT NULL")
    if variant in ("no-owner-index", "no-indexes"):
        schema = schema.replace(OWNER_INDEX, "")
    if variant == "nonunique-id":
        schema += "CREATE INDEX calls_by_id ON calls(id);"
    if variant == "id-expression":
        schema += "CREATE INDEX calls_by_id_part ON calls(substr(id, 7, 8));"
    if variant == "fewer-columns":
        for column in EMPTY_COLUMNS:
            schema = schema.replace(column, "")
        schema = schema.replace("arguments TEXT, );", "arguments TEXT);")
    if variant == "without-rowid":  # (seq as the statement's time: rows of a statement share it, later ones sort after)
        schema = schema.replace(f"seq INTEGER PRIMARY KEY, {UNIQUE_ID},",
                                "seq REAL NOT NULL DEFAULT (julianday('now')), id TEXT PRIMARY KEY,")
        schema = schema.replace("body TEXT);", "body TEXT) WITHOUT ROWID;") + "CREATE INDEX calls_by_seq ON calls(seq);"
    return schema


def child(variant: str, batches: int) -> None:
    """``batches`` batches of 256 rows written by a store of ``variant`` in a new directory."""
    from nanohubmcp.server.provenance import record_db
    from nanohubmcp.server.provenance.rows import CallRow

    directory = tempfile.mkdtemp()
    record_db.SCHEMA = schema_of(variant, record_db.SCHEMA)
    if variant.startswith("page-"):  # (a file's page size is set before its first page is written)
        db = sqlite3.connect(os.path.join(directory, record_db.DB_FILE))
        db.execute(f"PRAGMA page_size={int(variant[5:-1]) * 1024}")
        db.execute("VACUUM")
        db.close()
    store = record_db.SQLiteRecords(directory)
    setting = {"cache-16m": "cache_size=-16000", "sync-off": "synchronous=OFF",
               "exclusive-lock": "locking_mode=EXCLUSIVE", "no-autocheckpoint": "wal_autocheckpoint=0"}.get(variant)
    if setting is not None:
        store._db.execute(f"PRAGMA {setting}")
    if variant.startswith("rows-"):
        record_db.ROWS_PER_STATEMENT = int(variant[5:])
    if UNIQUE_ID not in record_db.SCHEMA or variant == "plain-insert":
        made = record_db._statement

        def plain(rows: list[CallRow]) -> tuple[str, list[object]]:
            statement, values = made(rows)
            return statement.replace("INSERT OR REPLACE", "INSERT", 1), values

        record_db._statement = plain
    now = time.time()
    owner = "session:" + "ab" * 32
    call = CallRow(
        id="", owner=owner[:24] if variant == "short-owner" else owner, tool="add",
        facts="f7e320556fdcef650491bfe1e9e68533", created=now, expires=now + 3600, session=owner[8:20],
        protocol_version="2025-11-25", executor="event-loop", thread="MainThread", status="completed",
        result='{"content":[{"type":"text","text":"3.75"}],"isError":false}', arguments='{"a":1.5,"b":2.25}',
    )
    randoms = base64.urlsafe_b64encode(os.urandom(14 * 256 * batches)).decode()
    made_row = tuple.__new__
    at = 0
    for batch in range(batches):
        run = f"R{batch // 4:05d}"  # (a run of 1,024 ids: four batches)
        now = time.time()
        expires = now + 3600
        rows = []
        for index in range(256):  # (each its own id, request id and times; the rest shared, as a session's calls)
            started = now - (256 - index) * 1e-4
            rows.append(made_row(CallRow, (run + randoms[at:at + 18], *call[1:4], now, expires, *call[6:8],
                                           batch * 256 + index, *call[9:12], started, started + 5e-5, *call[14:])))
            at += 18
        if variant != "none":
            store.put_many(rows, {}, 1_000_000)
    store.close()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
    elif len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
    else:
        for name in sys.argv[1:] or VARIANTS:
            if name not in VARIANTS:
                raise SystemExit(f"no variant {name!r}: {', '.join(VARIANTS)}")
            low, high = count(name, LOW, __file__), count(name, HIGH, __file__)
            print(f"{name:18} {(high - low) / ((HIGH - LOW) * 256):8,.0f} instructions a row", flush=True)
