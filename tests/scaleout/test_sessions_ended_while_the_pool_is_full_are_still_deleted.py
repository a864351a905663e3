"""Legacy ``/sse`` streams closed at once, while every pooled Redis connection is in use, still have
their session records deleted.

The delete of a session whose stream closed ran in the background and took a pooled connection like a
request: finding the pool full for longer than a request waits (``POOL_WAIT_SECONDS``), it was refused
"busy" and dropped. The record then lived until its idle time ran out (an hour by default), counted
against its principal's share of sessions all along. Here the pool holds 2 connections
(``?max_connections=2``) and Redis is paused (``CLIENT PAUSE``) longer than that wait while the streams
close; once Redis answers again, every record is gone.
"""

from __future__ import annotations

import socket

import pytest
import redis
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.state.redis_pool import POOL_WAIT_SECONDS

pytestmark = pytest.mark.timeout(90)

STREAMS = 12
PAUSE_MS = int((POOL_WAIT_SECONDS * 2 + 1) * 1000)
"""Longer than two waits for a pooled connection: the deletes' waits run out while Redis is paused."""


def open_stream(port: int) -> socket.socket:
    """A legacy ``GET /sse`` stream, read until its ``endpoint`` event (its session is stored by then)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    seen = b""
    while b"endpoint" not in seen:
        chunk = sock.recv(4096)
        assert chunk, seen
        seen += chunk
    assert seen.startswith(b"HTTP/1.1 200"), seen
    return sock


def test_sessions_whose_streams_closed_while_the_pool_was_full_are_deleted(redis_server: RedisServer) -> None:
    server = MCPServer("crowded", state_url=redis_server.url + "?max_connections=2")
    admin = redis.Redis(port=redis_server.port, decode_responses=True)

    def records() -> list[str]:
        return list(admin.scan_iter("nanohubmcp:crowded:s:*"))

    try:
        with serve(server) as base:
            port = int(base.rstrip("/").rsplit(":", 1)[1])
            streams = [open_stream(port) for _ in range(STREAMS)]
            wait_until(lambda: len(records()) == STREAMS, f"{STREAMS} session records stored", timeout=30)
            # Redis holds every command: the deletes queue for the pool's 2 connections longer than a
            # request waits for one.
            admin.execute_command("CLIENT", "PAUSE", PAUSE_MS, "ALL")
            for stream in streams:
                stream.close()
            wait_until(lambda: len(server.core.sessions) == 0, "the closed streams' sessions ended here", timeout=30)
            wait_until(lambda: not records(), "every session record deleted (not left to its idle time)", timeout=30)
    finally:
        admin.close()
