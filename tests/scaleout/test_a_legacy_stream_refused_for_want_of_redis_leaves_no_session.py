"""``GET /sse`` while the shared store (Redis) is unreachable is answered 503, and leaves nothing
behind: the session it began is ended, not kept in the process until its idle time runs out (each
retry of a client waiting for Redis took one more of the process's sessions)."""

from __future__ import annotations

import pytest
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(60)


def test_a_refused_legacy_stream_leaves_no_session(redis_server: RedisServer) -> None:
    server = MCPServer("refused", state_url=redis_server.url)
    with serve(server) as url:
        redis_server.stop()
        for _ in range(3):
            reply = wire.httpx.get(url + "sse", headers={"Accept": "text/event-stream"}, timeout=20)
            assert reply.status_code == 503, reply.text
            assert reply.headers.get("Retry-After")
        assert len(server.core.sessions) == 0, "a refused GET /sse left its session behind"
