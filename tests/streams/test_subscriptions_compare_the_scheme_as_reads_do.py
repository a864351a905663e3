"""Resource subscriptions compare a URI's scheme without regard to case, as ``resources/read`` does since the
scheme became case-insensitive there (RFC 3986 § 3.1): a session subscribed to ``CONFIG://lab`` is told of a
change the server names ``config://lab``, in a ``notifications/resources/updated`` naming ``CONFIG://lab``,
the URI as subscribed (the one spelling the client knows); ``resources/unsubscribe`` in any spelling ends it;
one resource in two spellings counts once against the cap of 64. Before, the two spellings never met.
A 2026 ``subscriptions/listen`` matches alike, sub-resources included.

Every "nothing came" below is shown by order, not by waiting: a notification the session should get is
sent after the one it should not, and is the next message read.

Source: MCP 2025-11-25, Server § Resources § Subscriptions; MCP 2026-07-28, Basic § Patterns §
Subscriptions; RFC 3986 § 3.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from stream_wire import Events, Wire
from support import serve

from nanohubmcp import MCPServer

UPDATED = "notifications/resources/updated"


def build() -> MCPServer:
    server = MCPServer("schemes")

    @server.resource("config://lab")
    def lab() -> str:
        """The lab's configuration."""
        return "lab"

    @server.resource("config://other")
    def other() -> str:
        """Another configuration."""
        return "other"

    @server.resource("item://{n}")
    def item(n: str) -> str:
        """One item."""
        return n

    return server


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[MCPServer, Wire]]:
    server = build()
    with serve(server) as url:
        yield server, Wire(url)


def named(stream: Events) -> str:
    """The URI the next message on ``stream``, a resource update, names."""
    message = stream.next_message()
    assert message is not None, "the stream ended"
    assert message["method"] == UPDATED, message
    return str(message["params"]["uri"])


def subscribe(wire: Wire, session: str, uri: str, method: str = "resources/subscribe") -> dict[str, Any]:
    return wire.request(method, {"uri": uri}, session)


def test_a_change_reaches_a_subscription_in_any_spelling_named_as_subscribed(
    served: tuple[MCPServer, Wire],
) -> None:
    server, wire = served
    upper, lower = wire.initialize(), wire.initialize()
    upper_stream, lower_stream = wire.listen(upper), wire.listen(lower)
    try:
        assert "result" in subscribe(wire, upper, "CONFIG://lab")
        assert "result" in subscribe(wire, lower, "config://lab")
        server.resource_updated("config://lab")
        assert named(upper_stream) == "CONFIG://lab"
        assert named(lower_stream) == "config://lab"
        server.resource_updated("Config://lab")  # the server's own spelling may differ too
        assert named(upper_stream) == "CONFIG://lab"
        assert named(lower_stream) == "config://lab"
        # The path is compared exactly, as resources/read compares it: config://LAB is another resource.
        assert "result" in subscribe(wire, upper, "config://other")
        server.resource_updated("config://LAB")
        server.resource_updated("config://other")
        assert named(upper_stream) == "config://other"
    finally:
        upper_stream.close()
        lower_stream.close()


def test_unsubscribe_in_another_spelling_ends_the_subscription(served: tuple[MCPServer, Wire]) -> None:
    server, wire = served
    session = wire.initialize()
    stream = wire.listen(session)
    try:
        assert "result" in subscribe(wire, session, "CONFIG://lab")
        assert "result" in subscribe(wire, session, "config://other")
        assert "result" in subscribe(wire, session, "Config://lab", "resources/unsubscribe")
        server.resource_updated("config://lab")
        server.resource_updated("config://other")
        assert named(stream) == "config://other"  # nothing for the lab came before it
        # Subscribing again in another spelling replaces the subscription: the newest spelling is named.
        assert "result" in subscribe(wire, session, "CONFIG://other")
        server.resource_updated("config://other")
        assert named(stream) == "CONFIG://other"
    finally:
        stream.close()


def test_one_resource_in_two_spellings_counts_once_against_the_cap(served: tuple[MCPServer, Wire]) -> None:
    _, wire = served
    session = wire.initialize()
    for n in range(64):
        assert "result" in subscribe(wire, session, f"item://{n}"), n
    assert "result" in subscribe(wire, session, "ITEM://0")  # the same subscription, not a 65th
    refused = subscribe(wire, session, "item://64")
    assert refused["error"]["code"] == -32602
    assert refused["error"]["message"] == "at most 64 subscriptions per session"
