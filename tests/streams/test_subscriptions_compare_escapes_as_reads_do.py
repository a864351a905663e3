"""Resource subscriptions compare percent-escapes as ``resources/read`` does (RFC 3986 § 6.2.2: an escaped
unreserved character is the character, an escape's hex digits have no case): the official ``mcp`` client,
subscribed to ``data://%6Cab`` (``%6C`` is ``l``), is told of ``server.resource_updated("data://lab")``, in
a ``notifications/resources/updated`` naming ``data://%6Cab``, the URI it subscribed with (the
specification leaves the spelling open; a client looks for the string it sent); unsubscribing in the
other spelling ends it. An escaped reserved character stays an escape: ``data://a%2fb`` is
``data://a%2Fb``, never ``data://a/b``. Before, subscriptions folded only the scheme, so the escaped
spelling never heard a change.

What should not arrive is shown by order: the next notification read is the one sent after it.

Source: MCP 2025-11-25, Server § Resources § Subscriptions; RFC 3986 §§ 2.3, 6.2.2.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.types import ResourceUpdatedNotification
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")


def build() -> MCPServer:
    server = MCPServer("escaped-subscriptions")

    @server.resource("data://lab")
    def lab() -> str:
        """The lab."""
        return "lab"

    @server.resource("data://other")
    def other() -> str:
        """Another resource."""
        return "other"

    @server.resource("data://a%2Fb")
    def slash() -> str:
        """A name with an escaped slash."""
        return "a/b"

    return server


async def attached(server: MCPServer) -> None:
    """Wait (bounded) until the one session's GET stream is open: what is sent before it is not kept."""
    with anyio.fail_after(10):
        while not any(s.standalone is not None and s.standalone.sink is not None for s in server.core.sessions.all()):
            await anyio.sleep(0.01)


@pytest.mark.anyio
async def test_a_subscription_in_an_escaped_spelling_hears_the_resource_and_is_named_as_subscribed() -> None:
    server = build()
    send, receive = anyio.create_memory_object_stream[Any](16)

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            await send.send(message.params.uri)

    async def next_uri() -> str:
        with anyio.fail_after(10):
            return str(await receive.receive())

    with serve(server) as url:
        async with mcp_client(url + "mcp", message_handler=on_message) as client:
            await attached(server)
            assert (await client.read_resource("data://%6Cab")).contents[0].text == "lab"  # type: ignore[union-attr]

            await client.subscribe_resource("data://%6Cab")
            server.resource_updated("data://lab")
            assert await next_uri() == "data://%6Cab"
            server.resource_updated("DATA://l%61b")  # the server's own spelling may differ too
            assert await next_uri() == "data://%6Cab"

            await client.unsubscribe_resource("data://lab")  # the other spelling ends it
            await client.subscribe_resource("data://oth%65r")
            server.resource_updated("data://lab")
            server.resource_updated("data://other")
            assert await next_uri() == "data://oth%65r"  # nothing for the lab came before it

            await client.subscribe_resource("data://lab")
            await client.unsubscribe_resource("data://%6c%61%62")  # lower-case hex too
            await client.subscribe_resource("data://a%2fb")
            server.resource_updated("data://lab")
            server.resource_updated("data://a/b")  # %2F is not "/": another resource
            server.resource_updated("data://a%2Fb")
            assert await next_uri() == "data://a%2fb"
