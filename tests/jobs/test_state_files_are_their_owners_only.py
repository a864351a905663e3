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
from pathlib import Path

import httpx
import pytest
from scaleout import wire
from support import serve, wait_until

from nanohubmcp import MCPServer

pytestmark = [pytest.mark.timeout(60), pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")]


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


def test_kept_results_and_runner_locks_are_the_owners_only(tmp_path: Path, loose_umask: None) -> None:
    """The results folder's files (a kept result's data and ``.meta.json``, an eviction note, the lock)
    and the runners' lock files, in folders made beforehand ``0755`` (trial33 W6: the kept files were
    ``0644`` and an existing ``results/`` stayed ``0755``: every principal's large results readable)."""
    state = tmp_path / "state"
    for folder in (state, state / "results", state / "runners"):
        folder.mkdir(mode=0o755)
    server = MCPServer("private", state_dir=str(state), max_inline_bytes=1000, max_kept_bytes=50_000)

    @server.tool()
    def text(n: int) -> str:
        """n characters: kept as a file past the inline bound."""
        return "x" * n

    @server.async_tool()
    def later(x: float) -> float:
        """x doubled, in the background (the runner's lock file)."""
        return 2 * x

    with serve(server) as url:
        session = wire.initialize(url + "mcp")
        for n in range(3):  # the third evicts the first: an eviction note
            answer = wire.httpx.post(url + "mcp", headers={**wire.headers(session), "Accept": "application/json"},
                                     json={"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                           "params": {"name": "text", "arguments": {"n": 20_000}}}, timeout=10)
            assert answer.json()["result"]["content"][-1]["type"] == "resource_link", answer.text
        job = httpx.post(url + "tools/later", json={"x": 3}, timeout=10).json()["job_id"]
        wait_until(lambda: httpx.post(url + "tools/get_job_result", json={"job_id": job}, timeout=10)
                   .json()["status"] == "done", "the job is done")
    for folder in ("results", "runners"):
        assert stat.S_IMODE((state / folder).stat().st_mode) == 0o700, folder
    kept = modes(state / "results")
    assert any(name.endswith(".meta.json") for name in kept), kept
    assert any(name.endswith(".evicted.json") for name in kept), kept
    assert kept == dict.fromkeys(kept, 0o600), kept
    runners = modes(state / "runners")
    assert runners, "no runner lock file"
    assert runners == dict.fromkeys(runners, 0o600), runners
