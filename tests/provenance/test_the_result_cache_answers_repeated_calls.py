"""The result cache (``@server.tool(cache=True)``) through a real server process and the official
``mcp`` client: a miss runs the tool and says ``hit: false``; the same call again answers without
running (``hit: true``), for the same caller only (``cache="shared"`` for every caller);
identical calls arriving while the first runs share its one run; the cache holds at most
``cache_max_bytes`` (least recently used dropped first); entries survive a restart on the same
state directory; each answer's provenance record says hit or miss.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from cache_server import CacheServer

pytestmark = pytest.mark.anyio
CACHE = "io.nanohub/cache"


@contextlib.asynccontextmanager
async def client(url: str) -> AsyncIterator[Any]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url + "mcp") as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield session


@pytest.fixture
def server(tmp_path: Path) -> Iterator[CacheServer]:
    running = CacheServer(tmp_path / "state", tmp_path / "runs.txt")
    try:
        yield running
    finally:
        running.stop()


async def test_a_repeated_call_is_a_hit_for_its_caller_only(server: CacheServer) -> None:
    async with client(server.url) as first:
        miss = await first.call_tool("simulate", {"temperature": 300})
        assert miss.structured_content == {"energy": 3000.0}
        assert miss.meta[CACHE] == {"hit": False}
        hit = await first.call_tool("simulate", {"temperature": 300, "steps": 10})  # the default, given
        assert hit.meta[CACHE] == {"hit": True}
        spelled = await first.call_tool("simulate", {"temperature": 300.0})  # the same number (a trial finding)
        assert spelled.meta[CACHE] == {"hit": True}
        assert hit.structured_content == miss.structured_content
        assert server.runs("simulate") == 1
        other = await first.call_tool("simulate", {"temperature": 301})
        assert other.meta[CACHE] == {"hit": False}
        assert server.runs("simulate") == 2
        record = json.loads((await first.read_resource(hit.meta["io.nanohub/provenance"])).contents[0].text)
        assert record["cache"] == "hit"
        # The hit's record names the record of the run that produced its result (a trial finding: its
        # executor, host and times are the lookup's); the wire names only the hit's own record.
        assert record["cached_from"] == miss.meta["io.nanohub/provenance"]
        assert hit.meta["io.nanohub/provenance"] != miss.meta["io.nanohub/provenance"]
        assert set(hit.meta) == {CACHE, "io.nanohub/provenance"}
        produced = json.loads((await first.read_resource(record["cached_from"])).contents[0].text)
        assert (produced["cache"], produced["cached_from"]) == ("miss", None)
        assert (
            record["result_digest"]
            == json.loads((await first.read_resource(miss.meta["io.nanohub/provenance"])).contents[0].text)[
                "result_digest"
            ]
        )
    async with client(server.url) as second:  # another caller never gets the first one's result
        theirs = await second.call_tool("simulate", {"temperature": 300})
        assert theirs.meta[CACHE] == {"hit": False}
        assert server.runs("simulate") == 3


async def test_concurrent_identical_calls_run_once(server: CacheServer) -> None:
    answers: list[Any] = []

    async def call() -> None:
        async with client(server.url) as session:
            answers.append(await session.call_tool("slow_constant", {"name": "c"}))

    async with anyio.create_task_group() as group:
        for _ in range(3):
            group.start_soon(call)
    assert server.runs("slow_constant") == 1
    assert [a.structured_content for a in answers] == [{"name": "c", "value": "42"}] * 3
    assert sorted(a.meta[CACHE]["hit"] for a in answers) == [False, True, True]
    assert sum(1 for a in answers if a.meta[CACHE].get("coalesced")) == 2


async def test_the_cache_is_bounded_by_bytes_least_recently_used_first(server: CacheServer) -> None:
    async with client(server.url) as session:
        for tag in "abcdefg":  # 7 results of ~1,200 bytes counted, in an owner's share of 4096 bytes
            assert (await session.call_tool("blob", {"size": 600, "tag": tag})).meta[CACHE] == {"hit": False}
        assert (await session.call_tool("blob", {"size": 600, "tag": "g"})).meta[CACHE] == {"hit": True}
        assert (await session.call_tool("blob", {"size": 600, "tag": "a"})).meta[CACHE] == {"hit": False}
        assert server.runs("blob") == 8
        huge = await session.call_tool("blob", {"size": 5000, "tag": "h"})  # over the owner's share: never kept
        assert huge.meta[CACHE] == {"hit": False, "stored": False}
        assert (await session.call_tool("blob", {"size": 5000, "tag": "h"})).meta[CACHE]["hit"] is False
        assert server.runs("blob") == 10


async def test_entries_survive_a_restart(tmp_path: Path) -> None:
    state, runs = tmp_path / "state", tmp_path / "runs.txt"
    first = CacheServer(state, runs)
    try:
        async with client(first.url) as session:
            miss = await session.call_tool("table", {"n": 5})
            assert miss.meta[CACHE] == {"hit": False}
            produced = json.loads((await session.read_resource(miss.meta["io.nanohub/provenance"])).contents[0].text)
    finally:
        first.stop()
    second = CacheServer(state, runs)
    try:
        async with client(second.url) as session:
            again = await session.call_tool("table", {"n": 5})
            assert again.meta[CACHE] == {"hit": True}
            record = json.loads((await session.read_resource(again.meta["io.nanohub/provenance"])).contents[0].text)
            assert record["cached_from"] is None  # another caller's run (a new session): named to its producer only
            assert record["result_digest"] == produced["result_digest"]  # the first server's run's result
            assert json.loads(again.content[0].text) == [0, 1, 4, 9, 16]
        assert second.runs("table") == 1
    finally:
        second.stop()
