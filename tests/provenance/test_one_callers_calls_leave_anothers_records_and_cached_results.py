"""One principal's calls never push another principal's provenance records or cached results out: each
owner keeps its own share (records: ten per job it may keep, 10 times ``max_jobs_per_owner``; cached results:
an eighth of ``cache_max_bytes``), its own oldest going first (review R40-2). A shared tool's hit by another
principal names no record of the producer's (review R40-6). A real server, the official ``mcp`` client,
records and cache in memory and in SQLite (a state directory)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clients import official
from mcp.shared.exceptions import MCPError
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier
from nanohubmcp.server.provenance import cache_store
from nanohubmcp.server.provenance.cache_store import SQLiteCache

pytestmark = pytest.mark.anyio
ALICE, BOB = "token-of-alice", "token-of-bob"
META, CACHE = "io.nanohub/provenance", "io.nanohub/cache"
BLOB = 2000
"""Characters of a ``sim`` result: 20 of bob's fill the whole cache (40,000 bytes), 2 his share (5,000).
Records: 50 in all (``max_jobs`` 5 times 10), 10 per owner."""


def build(state_dir: str | None, runs: list[str]) -> MCPServer:
    where: dict[str, Any] = {"job_store": "memory"} if state_dir is None else {"state_dir": state_dir}
    server = MCPServer("shares", auth=StaticTokenVerifier({ALICE: "alice", BOB: "bob"}), **where,
                       max_jobs=5, max_jobs_per_owner=1, cache_max_bytes=40_000)

    @server.tool(cache=True)
    def sim(n: int) -> str:
        """A 2 kB result, cached per caller."""
        runs.append(f"sim {n}")
        return str(n % 10) * BLOB

    @server.tool(cache="shared")
    def shared(n: int) -> dict[str, int]:
        """n squared, cached for every caller."""
        runs.append(f"shared {n}")
        return {"square": n * n}

    @server.tool()
    def ping() -> str:
        """A call that leaves a record."""
        return "pong"

    return server


@pytest.fixture(params=["memory", "sqlite"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    runs: list[str] = []
    with serve(build(None if request.param == "memory" else str(tmp_path / "state"), runs)) as base:
        yield base, runs


async def record(session: Any, uri: str) -> dict[str, Any]:
    read = await session.read_resource(uri)
    found: dict[str, Any] = json.loads(read.contents[0].text)
    return found


async def test_alices_record_outlives_bobs_calls_and_bobs_oldest_go(served: tuple[str, list[str]]) -> None:
    url, _ = served
    async with official(url, ALICE) as alice, official(url, BOB) as bob:
        alices = (await alice.call_tool("ping", {})).meta[META]
        assert (await record(alice, alices))["principal"] == "alice"
        bobs = [(await bob.call_tool("ping", {})).meta[META] for _ in range(60)]  # past the 50 of the whole
        assert (await record(alice, alices))["tool"] == "ping"  # bob's calls counted against his own share
        # bob keeps his newest 10 records (max_jobs_per_owner 1 times 10); his older ones went, and the
        # refusal says how many an owner keeps (the same text as for any unknown record)
        assert (await record(bob, bobs[-1]))["tool"] == "ping"
        assert (await record(bob, bobs[-10]))["tool"] == "ping"
        with pytest.raises(MCPError) as refused:
            await record(bob, bobs[0])
        assert "each owner keeps its newest 10 records" in refused.value.error.message
        with pytest.raises(MCPError) as made_up:
            await record(bob, "nanohubmcp://provenance/" + "x" * 24)
        assert made_up.value.error.message.replace("x" * 24, "") == refused.value.error.message.replace(
            bobs[0].rsplit("/", 1)[1], "")


async def test_alices_cached_result_outlives_bobs_and_bobs_oldest_go(served: tuple[str, list[str]]) -> None:
    url, runs = served
    async with official(url, ALICE) as alice, official(url, BOB) as bob:
        assert (await alice.call_tool("sim", {"n": 1})).meta[CACHE] == {"hit": False}
        assert (await alice.call_tool("sim", {"n": 1})).meta[CACHE]["hit"] is True
        for n in range(2, 42):  # 80 kB of results: twice the whole cache
            await bob.call_tool("sim", {"n": n})
        assert (await alice.call_tool("sim", {"n": 1})).meta[CACHE]["hit"] is True
        assert runs.count("sim 1") == 1
        # bob's oldest cached results went, his newest stays (his share: 5,000 bytes, two results)
        assert (await bob.call_tool("sim", {"n": 41})).meta[CACHE]["hit"] is True
        assert (await bob.call_tool("sim", {"n": 2})).meta[CACHE] == {"hit": False}


async def test_a_shared_hit_names_the_producing_record_to_its_producer_only(served: tuple[str, list[str]]) -> None:
    url, runs = served
    async with official(url, ALICE) as alice, official(url, BOB) as bob:
        made = await alice.call_tool("shared", {"n": 4242})
        assert made.meta[CACHE] == {"hit": False}
        hit = await bob.call_tool("shared", {"n": 4242})
        assert hit.meta[CACHE]["hit"] is True
        assert set(hit.meta) == {META, CACHE}  # nothing of the producer's on the wire
        bobs = await record(bob, hit.meta[META])
        assert bobs["cache"] == "hit"
        assert bobs["cached_from"] is None  # alice's record: not bob's to read, nor its id to know
        alices_hit = await alice.call_tool("shared", {"n": 4242})
        assert (await record(alice, alices_hit.meta[META]))["cached_from"] == made.meta[META]
        assert bobs["result_digest"] == (await record(alice, made.meta[META]))["result_digest"]
        assert runs.count("shared 4242") == 1


def test_a_cache_file_of_the_earlier_schema_gains_its_owners(tmp_path: Path) -> None:
    """A ``cache.sqlite3`` without the ``owner`` column: opened, its entries are of no owner and read; new
    entries are counted per owner; a second opening adds nothing again."""
    db = sqlite3.connect(tmp_path / "cache.sqlite3")
    db.executescript(
        "CREATE TABLE entries (key TEXT PRIMARY KEY, tool TEXT NOT NULL, code TEXT NOT NULL, result TEXT NOT NULL,"
        " size INTEGER NOT NULL, expires REAL NOT NULL, used REAL NOT NULL, stored REAL NOT NULL DEFAULT 0);"
        "INSERT INTO entries VALUES ('old', 't', 'c', '{\"a\": 1}', 8, 9e9, 1.0, 1.0);")
    db.close()
    cache = SQLiteCache(str(tmp_path))
    overhead = cache_store.ENTRY_OVERHEAD
    assert cache.read("old", 2.0) == ('{"a": 1}', 9e9)
    share = 2 * (overhead + 10)
    for n in range(3):
        cache.put(f"b{n}", "t", "c", '{"b": 100}', overhead + 10, 9e9, 1 << 20, 3.0 + n, "bob", share)
    cache.put("a", "t", "c", '{"c": 100}', overhead + 10, 9e9, 1 << 20, 9.0, "alice", share)
    assert [cache.read(key, 10.0) is not None for key in ("old", "b0", "b1", "b2", "a")] == [
        True, False, True, True, True]
    cache.close()
    again = SQLiteCache(str(tmp_path))
    assert again.total() == (4, 8 + 3 * (overhead + 10))
    again.close()
