"""A 2026 ``subscriptions/listen`` matches ``resourceSubscriptions`` with the scheme in any case, as
``resources/read`` does (RFC 3986 § 3.1), and names the URI as subscribed: ``CONFIG://lab`` is told of
``config://lab`` as ``CONFIG://lab``, and of a resource under it (``config://lab/run/1``) as
``CONFIG://lab/run/1``. Before, the two spellings never met. What should not arrive is shown by order:
the next message read is the one sent after it.

Source: MCP 2026-07-28, Basic § Patterns § Subscriptions; RFC 3986 § 3.1.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from modern_wire import Stream, Wire
from support import serve

from nanohubmcp import MCPServer


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[MCPServer, Wire]]:
    server = MCPServer("listen-schemes")

    @server.resource("config://lab")
    def lab() -> str:
        """The lab's configuration."""
        return "lab"

    with serve(server) as url:
        yield server, Wire(url + "mcp")


def named(stream: Stream) -> str:
    message = stream.next(timeout=10)
    assert message is not None, "the stream ended"
    assert message["method"] == "notifications/resources/updated", message
    return str(message["params"]["uri"])


def test_a_listen_is_told_of_a_change_in_another_spelling_named_as_subscribed(
    served: tuple[MCPServer, Wire],
) -> None:
    server, wire = served
    stream = wire.listen("subscriptions/listen", {"notifications": {"resourceSubscriptions": ["CONFIG://lab"]}},
                         request_id="l-1")
    with stream:
        assert stream.status == 200
        ack = stream.next(timeout=5)
        assert ack is not None
        assert ack["params"]["notifications"] == {"resourceSubscriptions": ["CONFIG://lab"]}
        server.resource_updated("config://lab")
        assert named(stream) == "CONFIG://lab"
        server.resource_updated("config://lab/run/1")  # a sub-resource: the rest as the server names it
        assert named(stream) == "CONFIG://lab/run/1"
        server.resource_updated("config://LAB")  # the path compares exactly: another resource
        server.resource_updated("Config://lab")
        assert named(stream) == "CONFIG://lab"


def test_a_listen_compares_escapes_as_reads_do(served: tuple[MCPServer, Wire]) -> None:
    """``config://%6Cab`` (``%6C`` is ``l``) is told of ``config://lab`` as ``config://%6Cab``, and of a
    resource under it with the rest as the server names it; ``%2F`` stays an escape (RFC 3986 § 6.2.2)."""
    server, wire = served
    stream = wire.listen("subscriptions/listen",
                         {"notifications": {"resourceSubscriptions": ["config://%6Cab", "config://a%2fb"]}},
                         request_id="l-2")
    with stream:
        assert stream.status == 200
        assert stream.next(timeout=5) is not None  # the acknowledgement
        server.resource_updated("config://lab")
        assert named(stream) == "config://%6Cab"
        server.resource_updated("CONFIG://l%61b/run/%31")  # under it: the rest as the server names it
        assert named(stream) == "config://%6Cab/run/%31"
        server.resource_updated("config://a/b")  # %2F is not "/": another resource
        server.resource_updated("config://a%2Fb/x")
        assert named(stream) == "config://a%2fb/x"
