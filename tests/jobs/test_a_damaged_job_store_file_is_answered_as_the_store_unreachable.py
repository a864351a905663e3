"""A job store's SQLite file damaged while the server serves (overwritten with garbage: SQLite's "file is not a
database"; a truncated one reads as "database disk image is malformed") is answered as the shared store being
unreachable: HTTP 503, -32000 with ``Retry-After``, a message saying the job store cannot be read; the server's
log names the file, once. The server serves on: a tool without jobs answers, and a done job this process holds is
still answered from it (``get_job_result``, ``tasks/get``, its large data linked).

Before: a background tool's call answered -32603 "Internal error; see the server log", and the log held a
traceback for every such request. A real server answers raw HTTP; its real SQLite file is overwritten.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from support import serve, wait_until

from nanohubmcp import MCPServer

sys.path.insert(0, str(Path(__file__).parents[1] / "modern"))
from modern_wire import TASK_CAPS, Wire

pytestmark = pytest.mark.timeout(120)
DATA = {"y": list(range(18_000))}
"""About 100 KB of JSON: over the server's ``max_inline_bytes``, so its answer links it."""


def _server(state_dir: Path) -> MCPServer:
    server = MCPServer("damaged-store", max_inline_bytes=4096, state_dir=str(state_dir))

    @server.async_tool()
    def big() -> dict[str, Any]:
        """About 100 KB of data."""
        return DATA

    @server.tool()
    def hello() -> str:
        """A tool without jobs."""
        return "hello"

    return server


def _stored_status(server: MCPServer, job_id: str) -> str | None:
    rows = server.core.job_service.jobs.backend.summaries([job_id], ("id", "status"))
    return rows[0]["status"] if rows else None


def _overwrite(path: Path) -> None:
    """Overwrite ``path`` and its side files, as a stray process would, with bytes no database begins with."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if name.exists():
            name.write_bytes(b"\x00not a database\x00" * max(1, name.stat().st_size // 16))


def test_a_store_overwritten_while_serving_is_answered_503_saying_so_and_the_server_serves_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    server = _server(tmp_path)
    with serve(server) as base:
        wire = Wire(base + "mcp", caps=TASK_CAPS, timeout=60)
        job_id = str(wire.call("tools/call", {"name": "big", "arguments": {}}).result["taskId"])
        wait_until(lambda: _stored_status(server, job_id) == "completed", "the job's end to be stored", 30)
        _overwrite(tmp_path / "jobs.sqlite3")
        caplog.set_level(logging.ERROR, "nanohubmcp")
        for _ in range(2):
            refused = wire.call("tools/call", {"name": "big", "arguments": {}})
            assert refused.status == 503, refused.response  # before: 200 carrying -32603 "Internal error"
            assert refused.response["error"]["code"] == -32000
            assert "job store cannot be read (file is not a database)" in refused.response["error"]["message"]
            assert refused.response["error"]["data"]["retryAfter"] > 0
        polled = wire.call("tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}})
        assert polled.status == 200, polled.response
        assert polled.result["content"][-1]["type"] == "resource_link"
        task = wire.call("tasks/get", {"taskId": job_id})
        assert task.status == 200, task.response
        assert task.result["status"] == "completed"
        hello = wire.call("tools/call", {"name": "hello", "arguments": {}})
        assert hello.result["content"] == [{"type": "text", "text": "hello"}]
    told = [r.getMessage() for r in caplog.records if str(tmp_path / "jobs.sqlite3") in r.getMessage()]
    assert len(told) == 1, told  # before: none named the file, a traceback per request
    assert "cannot be read (file is not a database)" in told[0]
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]


def test_a_file_that_is_no_database_at_start_keeps_jobs_in_memory_and_says_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "jobs.sqlite3").write_bytes(b"SQLite format 3\x00" + os.urandom(84))  # a header cut short
    server = _server(tmp_path)
    with caplog.at_level(logging.WARNING, "nanohubmcp"), serve(server) as base:
        wire = Wire(base + "mcp", caps=TASK_CAPS, timeout=60)
        job_id = str(wire.call("tools/call", {"name": "big", "arguments": {}}).result["taskId"])
        wait_until(lambda: wire.call("tasks/get", {"taskId": job_id}).result["status"] == "completed",
                   "the job to end", 30)
    assert any("cannot keep jobs in" in r.getMessage() and "kept in memory" in r.getMessage()
               for r in caplog.records)
