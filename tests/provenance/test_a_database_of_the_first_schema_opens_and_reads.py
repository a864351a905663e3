"""A state directory written by the first record schema (one JSON text per record in a
``records`` table) opens with today's store: its records move into the new table at open and
read as before (by id, by owner, in the operator's history), and new records join them."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.records import DB_FILE, ProvenanceStore, record_id_of
from nanohubmcp.state.base import session_key

FIRST_SCHEMA = """
CREATE TABLE records (
    id TEXT PRIMARY KEY, owner TEXT, tool TEXT NOT NULL, created REAL NOT NULL, expires REAL NOT NULL,
    body TEXT NOT NULL);
CREATE INDEX records_by_expiry ON records(expires);
CREATE INDEX records_by_owner ON records(owner, created);
CREATE TABLE sources (hash TEXT PRIMARY KEY, source TEXT NOT NULL, used REAL NOT NULL);
"""


def old_record(record_id: str, started: float) -> dict[str, object]:
    """A record as the first schema's writer stored it."""
    return {
        "id": record_id,
        "uri": f"nanohubmcp://provenance/{record_id}",
        "tool": "add",
        "code": {"hash": "sha256:" + "ab" * 32, "module": "__main__", "qualname": "add", "version": None},
        "python": {"version": "3.11.7", "implementation": "CPython"},
        "packages": {"numpy": "2.1.0"},
        "arguments": {"a": 1, "b": 2},
        "principal": None,
        "session": "s-1",
        "request_id": 7,
        "protocol_version": "2025-06-18",
        "trace_id": None,
        "span_id": None,
        "started": started,
        "ended": started + 0.001,
        "executor": "worker-pool",
        "where": {"host": "old-host", "pid": 4242, "thread": "nanohubmcp-worker_0"},
        "status": "completed",
        "result_digest": "sha256:" + "cd" * 32,
        "result": {"content": [{"type": "text", "text": "3.0"}], "isError": False},
        "resource_links": [],
        "cache": None,
    }


def write_first_schema(directory: Path, records: list[dict[str, object]], owner: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(directory / DB_FILE)
    try:
        db.executescript(FIRST_SCHEMA)
        now = time.time()
        for index, record in enumerate(records):
            db.execute(
                "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?)",
                (record["id"], owner, "add", now - 10 + index, now + 3600, json.dumps(record)),
            )
        db.commit()
    finally:
        db.close()


def test_records_of_the_first_schema_read_as_they_were_and_new_ones_join_them(
    tmp_path: Path, add_server: Callable[[str, Path], MCPServer]
) -> None:
    started = time.time() - 60
    old = [old_record("oldRecord0000000000000001", started), old_record("oldRecord0000000000000002", started + 1)]
    write_first_schema(tmp_path, old, "session:s-1")

    store = ProvenanceStore(3600.0, lambda: str(tmp_path))
    try:
        assert store.find(str(old[0]["id"])) == old[0]
        # the owner's session id is replaced by its key when the file is opened: its caller's owner key
        owner = f"session:{session_key('s-1')}"
        assert store.get(str(old[1]["id"]), owner) == old[1]
        assert store.get(str(old[1]["id"]), "session:s-1") is None  # (an id is no owner key)
        assert store.get(str(old[1]["id"]), f"session:{session_key('someone-else')}") is None  # still the owner's only
        assert store.of_owner(owner) == [old[1], old[0]]  # newest first
    finally:
        store.close()
    db = sqlite3.connect(tmp_path / DB_FILE)
    try:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        db.close()
    assert "records" not in tables  # migrated once, not read twice

    server = add_server("migrated", tmp_path)  # stopped when the test ends
    result = server.call("add", {"a": 2, "b": 5})
    new_id = record_id_of(result["_meta"]["io.nanohub/provenance"])
    assert new_id is not None
    history = server.core.provenance.recent(10)
    assert [record["id"] for record in history] == [new_id, old[1]["id"], old[0]["id"]]
    new = history[0]
    assert new["arguments"] == {"a": 2, "b": 5}
    assert new["result"]["content"][0]["text"] == "7.0"
    assert new["code"]["qualname"].endswith("add")
    assert server.core.provenance.find(str(old[0]["id"])) == old[0]
