"""An entry is judged by its tool's ``cache_ttl`` as it is now: it expires at the earlier of the
expiry it was stored with and its store time plus the current ttl. A ttl lowered at a restart
(3600 -> 1) expires the entries stored under the longer one (a real server process on a real
``cache.sqlite3``, restarted; the official ``mcp`` client); a ttl raised does not lengthen them.
A ``cache.sqlite3`` of an earlier version (no store time) is read on: its entries stay for a tool
without a ttl and are expired for a tool with one.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cache_server import CacheServer

from nanohubmcp.server.provenance.cache_store import MemoryCache, SQLiteCache

pytestmark = pytest.mark.anyio
CACHE = "io.nanohub/cache"


@contextlib.asynccontextmanager
async def client(url: str) -> AsyncIterator[Any]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url + "mcp") as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield session


async def call(state: Path, runs: Path, ttl: float, *, after: float = 0.0) -> dict[str, Any]:
    """Start the server on ``state`` with ``stamped``'s ``cache_ttl=ttl``, wait until the clock
    passes ``after``, call ``stamped(x=1)`` once and stop it; the call's cache meta and result."""
    server = CacheServer(state, runs, ttl=ttl)
    try:
        deadline = time.monotonic() + 30
        while time.time() <= after:  # the clock, not the server, is waited for
            assert time.monotonic() < deadline
            time.sleep(0.05)
        async with client(server.url) as session:
            result = await session.call_tool("stamped", {"x": 1})
            return {"cache": result.meta[CACHE], "result": json.loads(result.content[0].text)}
    finally:
        server.stop()


async def test_a_ttl_lowered_at_a_restart_expires_the_older_entries(tmp_path: Path) -> None:
    state, runs = tmp_path / "state", tmp_path / "runs.txt"
    first = await call(state, runs, 3600)
    assert first["cache"] == {"hit": False}
    stored_at = first["result"]["at"]
    kept = await call(state, runs, 3600)
    assert kept["cache"] == {"hit": True}  # the restart keeps it under the same ttl
    lowered = await call(state, runs, 1, after=stored_at + 1.5)
    assert lowered["cache"] == {"hit": False}  # stored 1.5 s ago: past the ttl now
    assert lowered["result"]["at"] > stored_at
    assert (runs.read_text().splitlines()).count("stamped") == 2


async def test_a_ttl_raised_does_not_lengthen_an_entry(tmp_path: Path) -> None:
    state, runs = tmp_path / "state", tmp_path / "runs.txt"
    first = await call(state, runs, 1)
    raised = await call(state, runs, 3600, after=first["result"]["at"] + 1.5)
    assert raised["cache"] == {"hit": False}  # the expiry it was stored with stands


@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_each_store_reads_an_entry_by_the_ttl_it_is_given(tmp_path: Path, store: str) -> None:
    cache = MemoryCache() if store == "memory" else SQLiteCache(str(tmp_path))
    cache.put("k", "tool", "code", '{"a": 1}', 8, 1000.0 + 3600, 1 << 20, 1000.0)
    assert cache.read("k", 1500.0, None) == ('{"a": 1}', 4600.0)
    assert cache.read("k", 1500.0, 600) == ('{"a": 1}', 1600.0)  # stored at 1000 + 600
    assert cache.read("k", 1500.0, 1) is None  # expired for the ttl now, and dropped
    assert cache.read("k", 1500.0, None) is None
    cache.close()


def test_a_cache_file_of_an_earlier_version_is_read_on(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "cache.sqlite3")
    db.executescript(
        "CREATE TABLE entries (key TEXT PRIMARY KEY, tool TEXT NOT NULL, code TEXT NOT NULL, result TEXT NOT NULL,"
        " size INTEGER NOT NULL, expires REAL NOT NULL, used REAL NOT NULL);"
    )
    now = time.time()
    db.executemany("INSERT INTO entries VALUES (?, 't', 'c', '{}', 2, ?, ?)",
                   [("a", now + 3600, now), ("b", now + 3600, now)])
    db.commit()
    db.close()
    cache = SQLiteCache(str(tmp_path))
    assert cache.read("a", now, None) == ("{}", now + 3600)  # no ttl: kept as stored
    assert cache.read("b", now, 3600) is None  # a ttl, and no store time to judge it by: expired
    cache.put("c", "t", "c", "{}", 2, now + 60, 1 << 20, now)
    assert cache.read("c", now, 3600) == ("{}", now + 60)
    cache.close()
    again = SQLiteCache(str(tmp_path))  # the column added once
    assert again.read("c", now, 30) == ("{}", now + 30)
    again.close()
