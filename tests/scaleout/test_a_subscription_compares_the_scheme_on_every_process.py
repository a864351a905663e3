"""With processes sharing a Redis ``state_url``, a resource subscription compares the scheme without regard
to case, as ``resources/read`` does (RFC 3986 § 3.1), whichever process took it and whichever notifies:
a session subscribed to ``CONFIG://lab`` on one process is told of ``config://lab`` changed on the other,
in a message naming ``CONFIG://lab``, the URI as subscribed; an unsubscribe in another spelling on the
other process ends it. Before, the subscribers were kept in Redis under the URI exactly as sent, so the
spellings never met. Percent-escapes compare alike (RFC 3986 § 6.2.2, as ``resources/read`` compares them):
``config://%6Cab`` is ``config://lab``; before, only the scheme was folded. What should not arrive is
shown by order: the next message read is the one sent after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest
import wire
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(60)


def build(state_url: str) -> MCPServer:
    server = MCPServer("schemes-shared", state_url=state_url)

    @server.resource("config://lab")
    def lab() -> str:
        """The lab's configuration."""
        return "lab"

    @server.resource("config://other")
    def other() -> str:
        """Another configuration."""
        return "other"

    return server


@contextmanager
def two(state_url: str) -> Iterator[list[tuple[MCPServer, str]]]:
    with ExitStack() as stack:
        servers = [build(state_url) for _ in range(2)]
        yield [(server, stack.enter_context(serve(server)) + "mcp") for server in servers]


def subscribe(url: str, session: str, uri: str, method: str = "resources/subscribe") -> None:
    reply = wire.call(url, session, method, {"uri": uri})
    assert reply.status_code == 200, reply.text
    assert reply.json()["result"] == {}, reply.text


def named(stream: wire.Events) -> str:
    _, message = stream.next()
    assert message is not None, "the stream ended"
    assert message["method"] == "notifications/resources/updated", message
    return str(message["params"]["uri"])


@pytest.mark.parametrize(
    ("subscribed", "changed_here", "unsubscribed", "other"),
    [
        ("CONFIG://lab", "Config://lab", "Config://lab", "config://other"),
        # RFC 3986 § 6.2.2: %6C is l, and an escape's hex has no case; the Redis key is the comparison form.
        ("config://%6Cab", "config://l%61b", "config://lab", "config://oth%65r"),
    ],
)
def test_a_change_on_one_process_reaches_a_subscription_in_another_spelling_taken_on_the_other(
    redis_server: RedisServer, subscribed: str, changed_here: str, unsubscribed: str, other: str,
) -> None:
    with two(redis_server.url) as ((first, first_url), (second, second_url)):
        session = wire.initialize(first_url)
        subscribe(first_url, session, subscribed)
        stream = wire.open_get(second_url, session)
        try:
            assert stream.status == 200
            second.resource_updated("config://lab")
            assert named(stream) == subscribed
            first.resource_updated(changed_here)
            assert named(stream) == subscribed

            subscribe(second_url, session, unsubscribed, "resources/unsubscribe")
            subscribe(first_url, session, other)
            second.resource_updated("config://lab")
            second.resource_updated("config://other")
            assert named(stream) == other  # nothing for the lab came before it
        finally:
            stream.close()
