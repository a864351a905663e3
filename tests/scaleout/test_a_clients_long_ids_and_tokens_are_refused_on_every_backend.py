"""A request's ``id`` and its ``_meta.progressToken`` are at most 256 characters, on every backend
(trial40 S4): both are repeated in what the server sends (every progress notification carries the
token, every answer its id) and kept in resumable streams' event logs, which with a Redis
``--state-url`` are Redis streams; a megabyte token, copied into each of a call's progress events,
parked hundreds of MB in the Redis every process and user shares, and a long id did the same through
the legacy SSE stream's log.

- A longer token is invalid params (-32602), a longer id an invalid request (-32600), each saying
  the limit and what to send instead, on a server keeping its state in memory as on two processes
  sharing a real redis-server; a token or id of 256 characters is served as before.
- The refused messages leave nothing of their size in Redis.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
import redis
import wire
from cluster import Cluster, Server
from redis_server import RedisServer, find_redis, free_port
from support import installed

pytestmark = pytest.mark.timeout(90)

MAX_ID_CHARS = 256
"""The limit (``nanohubmcp.protocol.jsonrpc.MAX_ID_CHARS``)."""
LONG = 200_000
"""Characters of the refused tokens and ids (the reviewer's were 1-8 million)."""


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A process with its state in memory, and two processes on a redis-server (and a client of it)."""
    from nginx_weber import find_nginx

    workdir = tmp_path_factory.mktemp("long-ids")
    store = RedisServer(installed(find_redis(), "redis-server"), workdir).start()
    try:
        nodes = Cluster(installed(find_nginx(), "nginx"), workdir, store.url, 2)
        alone = Server(workdir, free_port(), "memory://", env={**os.environ, "MCP_TOKEN": ""})
        try:
            alone.wait_listening()
            yield {"memory": alone.url, "redis": nodes.servers[0].url,
                   "store": redis.Redis.from_url(store.url), "logs": lambda: nodes.logs() + alone.text()}
        finally:
            alone.stop()
            nodes.close()
    finally:
        store.stop()


def sse_call(url: str, session: str, token: str, rid: int | str = 7) -> tuple[int, list[dict[str, Any]]]:
    """``progress_blob`` called with SSE accepted and ``token`` as its progress token: the HTTP status
    and the messages answered (one JSON body, or the events of the stream)."""
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": "progress_blob", "arguments": {"n": 10}, "_meta": {"progressToken": token}}}
    reply = httpx.post(url, headers=wire.headers(session), json=body, timeout=30)
    if reply.headers["Content-Type"].startswith("application/json"):
        return reply.status_code, [reply.json()]
    return reply.status_code, [json.loads(line[5:]) for line in reply.text.splitlines()
                                if line.startswith("data:") and line[5:].strip()]


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_a_long_progress_token_is_invalid_params_naming_the_limit(servers: dict[str, Any], backend: str) -> None:
    url = str(servers[backend])
    session = wire.initialize(url)
    status, messages = sse_call(url, session, "p" * LONG)
    error = messages[-1]["error"]
    assert messages[-1]["id"] == 7
    assert error["code"] == -32602, messages  # type: ignore[index]
    assert f"a string of {LONG} characters" in error["message"], error  # type: ignore[index]
    assert f"at most {MAX_ID_CHARS} characters" in error["message"], error  # type: ignore[index]
    assert status == 400 or (status == 200 and len(messages) == 1)
    status, messages = sse_call(url, session, "p" * MAX_ID_CHARS)
    assert status == 200
    assert messages[0]["method"] == "notifications/progress"
    assert messages[0]["params"]["progressToken"] == "p" * MAX_ID_CHARS  # type: ignore[index]
    assert messages[-1]["result"]["content"][0]["text"] == "x" * 10  # type: ignore[index]


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_a_long_id_is_an_invalid_request_naming_the_limit(servers: dict[str, Any], backend: str) -> None:
    url = str(servers[backend])
    session = wire.initialize(url)
    reply = wire.call(url, session, "ping", {}, rid="i" * LONG)  # type: ignore[arg-type]
    assert reply.status_code == 400, reply.text
    body = reply.json()
    assert body["id"] is None  # never repeated
    assert body["error"]["code"] == -32600
    assert f"a string of {LONG} characters" in body["error"]["message"]
    assert f"an id is at most {MAX_ID_CHARS} characters" in body["error"]["message"]
    reply = wire.call(url, session, "ping", {}, rid=10 ** (MAX_ID_CHARS + 10))
    assert reply.json()["error"]["code"] == -32600
    assert f"an integer of {MAX_ID_CHARS + 11} digits" in reply.json()["error"]["message"]
    assert wire.call(url, session, "ping", {}, rid="i" * MAX_ID_CHARS).json() == {  # type: ignore[arg-type]
        "jsonrpc": "2.0", "id": "i" * MAX_ID_CHARS, "result": {}}


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_a_long_id_on_the_legacy_stream_is_refused_and_not_kept(servers: dict[str, Any], backend: str) -> None:
    base = str(servers[backend]).removesuffix("/mcp")
    stream = wire.LegacyStream(base)
    try:
        assert stream.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}).status_code == 202
        assert stream.messages.get(timeout=15)["id"] == 1
        assert stream.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        for _ in range(5):
            reply = stream.post({"jsonrpc": "2.0", "id": "i" * LONG, "method": "ping"})
            assert reply.status_code == 400, reply.text
            assert reply.json()["error"]["code"] == -32600
            assert f"at most {MAX_ID_CHARS} characters" in reply.json()["error"]["message"]
        assert stream.post({"jsonrpc": "2.0", "id": 2, "method": "ping"}).status_code == 202
        assert stream.messages.get(timeout=15) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    finally:
        stream.close()
    if backend == "redis":
        store = servers["store"]
        assert isinstance(store, redis.Redis)
        sizes = {key: store.memory_usage(key) or 0 for key in store.scan_iter(b"*:ev:*", count=1000)}
        assert sizes
        assert max(sizes.values()) < LONG, sizes


def test_the_servers_logs_hold_none_of_it(servers: dict[str, Any]) -> None:
    assert "p" * MAX_ID_CHARS not in servers["logs"]()
    assert "i" * (MAX_ID_CHARS + 1) not in servers["logs"]()
