"""A running stream's event log in Redis holds at most 4 MiB of its messages, as a stream one process keeps does.

The log of a stream (``ev:<session>:<stream>``) was bounded only to ~256 entries: a tool logging messages of
60 kB made Redis hold 256 x 60 kB (15 MB) for each such call, where one process keeps 4 MiB of a stream
(``streams.KEEP_BYTES``). Now the oldest entries are deleted past that bound, the newest kept, and a client
resuming from before a deleted message is answered as for a stream no longer kept (a fresh GET stream), on another
process too, while a resume from after them is replayed there.
"""

from __future__ import annotations

from typing import Any

import httpx2 as httpx  # the official client's HTTP library (installed with mcp)
import pytest
import redis
import wire
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import Context, MCPServer
from nanohubmcp.server.wire.streams import KEEP_BYTES
from nanohubmcp.state.base import session_key
from nanohubmcp.state.redis_event_bounds import RUNNING_BYTES

pytestmark = pytest.mark.timeout(90)

NAME = "log-bytes"
PIECE = 60_000
"""Characters of each message (a logged message is cut past 64 KiB)."""
COUNT = 100
"""Messages the tool logs: 6 MB in all, past the bound (fewer than the log's bound in entries, and than the 8 MiB a
client may leave unread: the test's reader may lag the tool)."""


def chatty_server(url: str) -> MCPServer:
    server = MCPServer(NAME, state_url=url)

    @server.tool()
    def chatter(n: int, ctx: Context) -> str:
        """Log ``n`` messages of 60 kB."""
        for i in range(n):
            ctx.log("info", f"{i} " + "x" * PIECE)
        return "said"

    return server


def first_event(url: str, session: str, last_event_id: str) -> str:
    """The id of the first event (a fresh GET stream's priming event too, which holds no message) a resume from
    ``last_event_id`` at ``url`` gets."""
    headers = {**wire.headers(session, **{"Last-Event-ID": last_event_id}), "Accept": "text/event-stream"}
    with httpx.Client(timeout=httpx.Timeout(10, read=30)) as client, \
            client.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200, response.status_code
        for line in response.iter_lines():
            if line.startswith("id:"):
                return line[3:].strip()
    raise AssertionError(f"the resume from {last_event_id} ended with no event")


def test_the_log_holds_the_bound_and_a_resume_from_before_it_gets_a_fresh_stream(redis_server: RedisServer) -> None:
    assert RUNNING_BYTES == KEEP_BYTES  # (the same bound as a stream one process keeps)
    with serve(chatty_server(redis_server.url)) as one, serve(chatty_server(redis_server.url)) as two, \
            redis.Redis.from_url(redis_server.url, decode_responses=True) as store:
        session = wire.initialize(one + "mcp")
        wire.result(one + "mcp", session, "logging/setLevel", {"level": "info"})
        call = wire.Events("POST", one + "mcp", wire.headers(session),
                           {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                            "params": {"name": "chatter", "arguments": {"n": COUNT}}})
        ids: list[str] = []
        try:
            message: Any = {}
            while message.get("id") != 5:
                event_id, message = call.next(step="the call's messages and answer")
                ids.append(str(event_id))
        finally:
            call.close()
        stream = ids[0].split(".", 1)[0]
        key = f"nanohubmcp:{NAME}:ev:{session_key(session)}:{stream}"
        wait_until(lambda: (store.xrevrange(key, count=1) or [("", {})])[0][1].get("f") == "1", "the answer logged")

        def held() -> int:
            return sum(len(fields["m"]) for _, fields in store.xrange(key))

        # the trim is the writer's next round trip after the batch that logged the answer (ci77, under load: the
        # answer read before its batch's trim, 6.0 MB in 101 entries); a log never trimmed fails here
        wait_until(lambda: held() <= RUNNING_BYTES, f"the log trimmed to {RUNNING_BYTES} bytes")
        entries = store.xrange(key)
        assert entries[-1][1]["e"] == ids[-1]  # the newest kept
        oldest = int(entries[0][1]["e"].split(".")[1])
        assert oldest > int(ids[1].split(".")[1])  # the first messages were deleted

        for url in (one, two):
            assert first_event(url + "mcp", session, ids[1]).startswith("g."), url  # its first messages are gone
            assert first_event(two + "mcp", session, f"{stream}.{oldest - 1}") == f"{stream}.{oldest}"
