"""The first MCP answer of a done job whose data is over ``max_inline_bytes`` (``get_job_result``, the tasks
extension's ``tasks/get``) while the job store cannot be read or written — the server's Redis stopped, its SQLite
file locked by another writer past its timeout — links the data all the same: the job is in hand (this process ran
it), so its data is kept and its link answered, not stored with the record (logged). Every answer during the outage
gives that link; the first once the store is back stores it with the record, so that every process answers it.

Before: the Redis outage answered 503 ("The server's shared state store is unreachable"), though the data was in
hand; the locked SQLite file answered -32603 "Internal error" once its 30 s timeout passed, the copy kept left
unnamed. A real server answers real requests; a real redis-server is stopped, a real SQLite connection of another
"process" holds the file's write lock.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.server.jobs import sqlite_file

sys.path.insert(0, str(Path(__file__).parents[1] / "modern"))
from modern_wire import TASK_CAPS, Wire

pytestmark = pytest.mark.timeout(180)
DATA = {"y": list(range(18_000))}
"""About 100 KB of JSON: over the server's ``max_inline_bytes``, so its answer keeps it and links it."""


def _server(**options: Any) -> MCPServer:
    server = MCPServer("poll-outage", max_inline_bytes=4096, **options)

    @server.async_tool()
    def big() -> dict[str, Any]:
        """About 100 KB of data."""
        return DATA

    return server


def _ended_job(server: MCPServer, wire: Wire) -> str:
    """A ``big`` job's id, once it completed (read from the operator's listing: an MCP answer would keep its data)."""
    task_id = wire.call("tools/call", {"name": "big", "arguments": {}}).result["taskId"]
    jobs = server.core.job_service.jobs
    wait_until(lambda: [job["status"] for job in jobs.listing()] == ["completed"], "the job to end", 30)
    return str(task_id)


def _polled_link(wire: Wire, job_id: str) -> str:
    """The URI ``get_job_result`` links the job's data with (its answer's last block)."""
    reply = wire.call("tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}})
    assert reply.status == 200, reply.response
    link = reply.result["content"][-1]
    assert link["type"] == "resource_link", reply.result
    return str(link["uri"])


def _reads(wire: Wire, uri: str) -> Any:
    return json.loads(wire.call("resources/read", {"uri": uri}).result["contents"][0]["text"])


def _stored_link(server: MCPServer, job_id: str) -> str | None:
    rows = server.core.job_service.jobs.backend.summaries([job_id], ("id", "kept_data"))
    kept = rows[0].get("kept_data") if rows else None
    return kept[1]["uri"] if kept else None


def test_a_poll_while_redis_is_down_links_the_data_and_stores_the_link_once_it_is_back(
        redis_on_disk: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    server = _server(state_url=redis_on_disk.url)  # (made here, not by a fixture: it is garbage once the test ends)
    with serve(server) as base:
        wire = Wire(base + "mcp", caps=TASK_CAPS, timeout=60)
        job_id = _ended_job(server, wire)
        redis_on_disk.stop()
        try:
            uri = _polled_link(wire, job_id)  # before: 503
            task = wire.call("tasks/get", {"taskId": job_id})
            assert task.status == 200, task.response
            assert task.result["result"]["content"][-1]["uri"] == uri  # the same copy for every answer of the job
            assert _reads(wire, uri) == DATA
            assert any("could not be read or written" in r.getMessage() and job_id in r.getMessage()
                       for r in caplog.records)
        finally:
            redis_on_disk.start()  # (back before the server stops: it closes its Redis state)
        assert _polled_link(wire, job_id) == uri
        assert _stored_link(server, job_id) == uri  # stored with the record: every process answers it now
    # The records hold the outage's exceptions, whose tracebacks hold the server: let go, so that its job store's
    # threads end before the Redis stops (else the fixture waits out its bound for them).
    caplog.clear()


def test_a_poll_while_the_sqlite_file_is_locked_links_the_data_and_stores_the_link_once_it_is_free(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_file, "BUSY_TIMEOUT_SECONDS", 0.5)  # (30 s: the same failure, later)
    server = _server(state_dir=str(tmp_path))
    with serve(server) as base:
        wire = Wire(base + "mcp", caps=TASK_CAPS, timeout=120)
        job_id = _ended_job(server, wire)
        holder = sqlite3.connect(tmp_path / "jobs.sqlite3", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process's write, held past the store's busy timeout
        try:
            uri = _polled_link(wire, job_id)  # before: -32603 "Internal error" (sqlite3: database is locked)
            assert _reads(wire, uri) == DATA
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert _polled_link(wire, job_id) == uri
        assert _stored_link(server, job_id) == uri
