"""The in-memory client's close waits (bounded) for the shared store's close, which writes what is queued for its
event logs first (review r29 #6): before, ``StoreLink.close`` set and took back the task in one call, so the
close the detach started was awaited by nobody and cancelled mid-flush as the client's loop ended
(``asyncio.run``'s end): an entry queued just before the close never reached Redis.

A real redis-server; the official ``redis`` client reads what was written."""

from __future__ import annotations

import asyncio
from pathlib import Path

import redis
from redis_server import RedisServer

from nanohubmcp import MCPServer
from nanohubmcp.testing import MemoryClient


def test_an_entry_queued_just_before_the_in_memory_clients_close_is_in_redis_after(
        redis_server: RedisServer, tmp_path: Path) -> None:
    server = MCPServer("closing", state_url=redis_server.url, state_dir=str(tmp_path / "state"))

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    keys: list[str] = []

    async def main() -> None:
        async with MemoryClient(server) as client:
            assert (await client.call_tool("add", {"a": 1, "b": 2}))["content"][0]["text"] == "3"
            replication = server.core.replication
            assert replication is not None  # (connected to Redis on this loop)
            state = replication.state
            keys.append(state.events.key("a-session", "g"))  # type: ignore[attr-defined]
            state.append("a-session", "g", {"m": '{"jsonrpc":"2.0","method":"x"}', "f": "0", "o": state.process})

    asyncio.run(main())
    with redis.Redis.from_url(redis_server.url, socket_timeout=5) as reader:
        assert reader.exists(keys[0]), "the entry queued before the close was not written"
