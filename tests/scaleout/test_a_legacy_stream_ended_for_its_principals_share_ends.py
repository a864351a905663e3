"""A legacy ``GET /sse`` stream whose session was ended for being past its principal's share ends too,
on whichever process holds it (trial40 S3, checked): the client learns of its session's end only from
its stream's, and the share bounds a principal's open streams only if they end.

The stream's response ends (its last chunk is sent); the connection stays open for HTTP/1.1 keep-alive
until it idles out, as after any response, so a probe waiting for the socket to close sees no end.
"""

from __future__ import annotations

import time
from contextlib import ExitStack

import pytest
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.timeout(90)

CAP = 3
AUTH = {"Authorization": "Bearer a-token"}
ENDS_WITHIN = 20.0
"""Seconds an ended session's stream may take to end (a reader checks its session every 6 s)."""


def build(state_url: str) -> MCPServer:
    server = MCPServer("capped", state_url=state_url, auth=StaticTokenVerifier({"a-token": "alice"}))
    server.core.sessions.max_per_principal = CAP
    return server


def opened(base: str) -> wire.LegacyStream:
    stream = wire.LegacyStream(base.rstrip("/"), AUTH)
    reply = stream.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert reply.status_code == 202, reply.text
    assert stream.messages.get(timeout=15)["id"] == 1
    return stream


def test_the_streams_of_sessions_past_the_share_end_on_both_processes(redis_server: RedisServer) -> None:
    with ExitStack() as stack:
        first, second = (stack.enter_context(serve(build(redis_server.url))) for _ in range(2))
        # Two on each process, then one more on each: the two oldest (one on each process) are past the share.
        streams = [opened(base) for base in (first, second, first, second, first, second)]
        for stream in streams:
            stack.callback(stream.close)
        past, kept = [streams[0], streams[1]], streams[3:]
        deadline = time.monotonic() + ENDS_WITHIN
        while time.monotonic() < deadline and not all(stream.ended.is_set() for stream in past):
            time.sleep(0.05)
        assert [stream.ended.is_set() for stream in past] == [True, True]
        assert [stream.post({"jsonrpc": "2.0", "id": 2, "method": "ping"}).status_code for stream in past] == [404] * 2
        assert [stream.ended.is_set() for stream in kept] == [False] * CAP
        for stream in kept:
            assert stream.post({"jsonrpc": "2.0", "id": 3, "method": "ping"}).status_code == 202
            assert stream.messages.get(timeout=15) == {"jsonrpc": "2.0", "id": 3, "result": {}}
