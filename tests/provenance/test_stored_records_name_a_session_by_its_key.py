"""Without authorization the ``Mcp-Session-Id`` is a live session's credential; no file of the state
directory holds it. Provenance records (``provenance.sqlite3``: the ``owner`` column, the ended
sessions), jobs (``jobs.sqlite3``: ``owner``, ``owner_key``) and large results (``results/*.meta.json``)
name the session that owns them by its key, the SHA-256 of its id; a caller is matched by the key of
its own id, so the access rules hold as before: a record, a job and a large result are their
session's while it lives, and read by their unguessable id once it ended.

Found after trial14 F2: records served and crates named the session by a digest, but the database
kept the raw id in its ``owner`` column (and ``jobs.sqlite3`` in ``owner``), for anyone who reads the
state directory to take over a live session. Rows of an earlier version are rekeyed when the file
is opened. With Redis: tests/scaleout (the records' and jobs' tests on every process).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from provenance.record_calls import RecordCaller
from support import serve, wait_until

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(90)


def build(state: Path) -> MCPServer:
    server = MCPServer("keyed-sessions", state_dir=str(state), max_inline_bytes=1000)

    @server.tool()
    def square(n: int) -> int:
        """n squared."""
        return n * n

    @server.tool()
    def big(n: int) -> str:
        """A text too large to send inline: kept as a resource of the server."""
        return "x" * n

    @server.async_tool()
    def cube(n: int) -> int:
        """n cubed, as a job."""
        return n * n * n

    return server


def _files(state: Path) -> list[Path]:
    return [path for path in state.rglob("*") if path.is_file()]


def _holding(state: Path, text: str) -> list[str]:
    return [path.name for path in _files(state) if text.encode() in path.read_bytes()]


def test_no_file_of_the_state_directory_holds_a_session_id(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with serve(build(state)) as url:
        caller = RecordCaller(url)
        mine, other = caller.open(), caller.open()
        uri = caller.recorded(mine, "square", {"n": 7})
        job = caller.call(mine, "cube", {"n": 3})["job_id"]
        wait_until(lambda: caller.status(mine, job) == "done", "the job reads done", 30)
        caller.recorded(mine, "big", {"n": 5000})
        assert caller.reads(mine, uri)
        assert not caller.reads(other, uri)  # its session lives: its own
        assert caller.status(other, job) == "not_found"
        files = {path.name for path in _files(state)}
        assert {"provenance.sqlite3", "jobs.sqlite3"} <= files
        assert any(name.endswith(".meta.json") for name in files)  # the large result
        assert _holding(state, mine) == []
        caller.end(mine)
        assert caller.reads(other, uri)  # ended: read by its URI
        assert caller.status(other, job) == "done"
    assert _holding(state, mine) == []


def test_rows_of_an_earlier_version_are_rekeyed_when_opened(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with serve(build(state)) as url:
        caller = RecordCaller(url)
        mine = caller.open()
        uri = caller.recorded(mine, "square", {"n": 6})
        job = caller.call(mine, "cube", {"n": 2})["job_id"]
        wait_until(lambda: caller.status(mine, job) == "done", "the job reads done", 30)
        caller.end(mine)
    # The files as an earlier version wrote them: the session's id where its key is now.
    with sqlite3.connect(state / "provenance.sqlite3") as db:
        assert db.execute("UPDATE calls SET owner = ?", (f"session:{mine}",)).rowcount == 2  # square, cube
        assert db.execute("UPDATE ended_sessions SET session = ?", (mine,)).rowcount == 1
    with sqlite3.connect(state / "jobs.sqlite3") as db:
        assert db.execute("UPDATE jobs SET owner = ?, owner_key = ?", (mine, f"session:{mine}")).rowcount == 1
    assert {name.split("-")[0] for name in _holding(state, mine)} >= {"provenance.sqlite3", "jobs.sqlite3"}
    with serve(build(state)) as url:
        caller = RecordCaller(url)
        other = caller.open()
        assert caller.reads(other, uri)  # its session ended (noted under its id): read by its URI
        assert caller.status(other, job) == "done"
    assert _holding(state, mine) == []
