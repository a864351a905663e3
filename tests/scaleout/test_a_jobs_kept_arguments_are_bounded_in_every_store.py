"""A job's record keeps at most 64 KiB of its call's arguments, in ``jobs.sqlite3`` and in Redis alike,
as a provenance record does: larger values are kept as their size and digest (trial40 S10: ten calls with
an 8 MB argument grew ``jobs.sqlite3`` by 99 MB, or Redis by 80 MB, kept an hour, up to 1,000 jobs per
principal). The function still gets the value whole, and the job's record still names each argument.

Through the official ``mcp`` client, a server with token authorization keeping its jobs in a real SQLite
state directory or on a real redis-server, and what the file or Redis then holds.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import redis
from redis_server import RedisServer
from support import ended_job, mcp_client, serve

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]
TOKEN = "token-of-erin"
LIMIT = 64 * 1024
DATA = "d" * 2_000_000


def _held(backend: str, tmp_path: Path, store: RedisServer | None) -> list[dict[str, Any]]:
    """The arguments each stored job record holds, read from the store itself."""
    if store is None:
        with sqlite3.connect(tmp_path / "jobs.sqlite3") as db:
            return [json.loads(text) for (text,) in db.execute("select arguments from jobs")]
    client = redis.Redis.from_url(store.url)
    try:
        keys = [key for key in client.scan_iter(b"*:job:*", count=1000) if client.type(key) == b"hash"]
        return [json.loads(text) for key in keys if (text := client.hget(key, "arguments"))]
    finally:
        client.close()


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
async def test_a_megabyte_argument_is_kept_as_its_size_and_digest(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store: RedisServer | None = request.getfixturevalue("redis_server") if backend == "redis" else None
    options: dict[str, Any] = {"state_url": store.url} if store is not None else {}
    server = MCPServer("bounded-jobs", auth=StaticTokenVerifier({TOKEN: "erin"}), state_dir=str(tmp_path), **options)

    @server.async_tool()
    def measure(label: str, data: str) -> int:
        """How long the data is."""
        return len(data)

    with serve(server) as url:
        async with mcp_client(url + "mcp", token=TOKEN) as client:
            started = await client.call_tool("measure", {"label": "run 7", "data": DATA})
            answer, _ = await ended_job(client, started)
            small = await client.call_tool("measure", {"label": "tiny", "data": "abc"})
            await ended_job(client, small)
        held = _held(backend, tmp_path, store)

    assert answer["status"] == "done", answer
    assert answer["result"] == len(DATA)  # the function got it whole
    digest = "sha256:" + hashlib.sha256(json.dumps(DATA).encode()).hexdigest()
    assert {"label": "run 7", "data": f"[not stored: {len(DATA) + 2} bytes of JSON, {digest}]"} in held
    assert {"label": "tiny", "data": "abc"} in held
    assert max(len(json.dumps(arguments)) for arguments in held) <= LIMIT
    if store is None:
        assert sum(path.stat().st_size for path in tmp_path.glob("jobs.sqlite3*")) < len(DATA)
