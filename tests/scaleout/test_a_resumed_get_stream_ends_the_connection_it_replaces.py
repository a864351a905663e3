"""A ``GET /mcp`` resuming the session's GET stream (``Last-Event-ID: g.<n>``) ends the connection
that read it until then, in memory as with a Redis ``--state-url`` (trial40 S2): the 409 for a second
GET was checked only for a GET without ``Last-Event-ID``, and a resume replaced the stream's reader
while the replaced connection stayed open with keep-alives for ever, never sent another message (the
client did not learn it was no longer the reader), so one token holder could hold any number of
streaming connections on one session.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(90)

RESUMES = 5


@pytest.fixture(params=["memory", "redis"])
def url(request: pytest.FixtureRequest, redis_server: RedisServer) -> Iterator[tuple[MCPServer, str]]:
    server = MCPServer("resumed", state_url=redis_server.url if request.param == "redis" else None)

    @server.tool()
    def hello() -> str:
        """Say hello."""
        return "hello"

    with ExitStack() as stack:
        yield server, stack.enter_context(serve(server)) + "mcp"


def ended(stream: wire.Events, timeout: float = 15) -> bool:
    """Whether the server ends ``stream`` within ``timeout`` seconds (messages before the end are skipped)."""
    try:
        while stream.next(timeout)[1] is not None:
            pass
    except AssertionError:
        return False
    return True


def test_a_resume_ends_the_stream_it_replaces_and_the_last_one_gets_the_messages(url: tuple[MCPServer, str]) -> None:
    server, endpoint = url
    session = wire.initialize(endpoint)
    streams = [wire.open_get(endpoint, session)]
    try:
        assert streams[0].status == 200
        for _ in range(RESUMES):
            streams.append(wire.open_get(endpoint, session, "g.0"))
            assert streams[-1].status == 200
            assert ended(streams[-2]), "the replaced GET stream was left open"
        second = wire.open_get(endpoint, session)
        streams.append(second)
        assert second.status == 409  # the stream is read: a plain GET is refused, as before

        @server.tool()
        def added() -> str:
            """A tool added while the stream is read."""
            return "added"

        reader = streams[-2]
        while (message := reader.next()[1]) is not None and message.get("method") != "notifications/tools/list_changed":
            pass
        assert message == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    finally:
        for stream in streams:
            stream.close()
