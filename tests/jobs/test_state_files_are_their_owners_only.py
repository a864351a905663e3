"""Every file the server writes in its state directory — the job store, the result cache, the
provenance records and SQLite's ``-wal``/``-shm`` beside each — is its owner's only (``0600``), under a
umask of 022 and in a state directory made beforehand readable by everyone (``0755``, as an operator
makes a shared ``--state-dir``); a database file of an earlier version left ``0644`` (and its side
files) is made ``0600`` when opened. They were ``0644``: any local user could read every principal's
arguments, results and cached answers (trial31 S5). A real server over REST."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support import serve, wait_until

from nanohubmcp import MCPServer

pytestmark = [pytest.mark.timeout(60), pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")]


@pytest.fixture
def loose_umask() -> Iterator[None]:
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def modes(directory: Path) -> dict[str, int]:
    return {path.name: stat.S_IMODE(path.stat().st_mode) for path in directory.iterdir() if path.is_file()}


def test_every_state_file_is_the_owners_only(tmp_path: Path, loose_umask: None) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o755)
    earlier = sqlite3.connect(state / "provenance.sqlite3")  # a file of an earlier version, with its side files
    earlier.execute("PRAGMA journal_mode=WAL")
    earlier.execute("CREATE TABLE left_behind (x)")
    assert stat.S_IMODE((state / "provenance.sqlite3-wal").stat().st_mode) == 0o644
    server = MCPServer("private", state_dir=str(state))

    @server.tool(cache=True)
    def square(x: float) -> float:
        """x squared (cached)."""
        return x * x

    @server.async_tool()
    def later(x: float) -> float:
        """x doubled, in the background."""
        return 2 * x

    with serve(server) as url:
        assert httpx.post(url + "tools/square", json={"x": 3}, timeout=10).status_code == 200
        job = httpx.post(url + "tools/later", json={"x": 3}, timeout=10).json()["job_id"]
        wait_until(lambda: httpx.post(url + "tools/get_job_result", json={"job_id": job}, timeout=10)
                   .json()["status"] == "done", "the job is done")
    earlier.close()
    found = modes(state)
    for name in ("jobs.sqlite3", "cache.sqlite3", "provenance.sqlite3", "provenance.sqlite3-wal",
                 "provenance.sqlite3-shm"):
        assert name in found, found
    assert found == dict.fromkeys(found, 0o600), found
