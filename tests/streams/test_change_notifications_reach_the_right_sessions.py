"""Change notifications while serving: ``notifications/resources/updated`` goes only to the sessions
that subscribed to the URI; ``notifications/*/list_changed`` goes to every initialized session's
stream (the GET stream, or the legacy SSE stream) when tools, resources or prompts are added or
removed — from any thread, as a notebook cell would.

Source: MCP 2025-11-25, Server § Resources § Subscriptions; Server § Tools/Resources/Prompts §
List Changed Notification; Transports § Streamable HTTP § Listening for messages.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

import anyio
import pytest
from stream_wire import Wire
from support import mcp_client, serve

from nanohubmcp import MCPServer


def build() -> MCPServer:
    server = MCPServer("changes")

    @server.resource("sensor://temperature")
    def temperature() -> str:
        """The current temperature."""
        return "20.5"

    @server.resource("sensor://humidity")
    def humidity() -> str:
        """The current humidity."""
        return "40"

    return server


def methods(messages: list[dict[str, Any]]) -> list[str]:
    return [m.get("method", "?") for m in messages]


def test_resource_updates_reach_only_the_subscriber_of_that_uri() -> None:
    server = build()
    with serve(server) as url:
        wire = Wire(url)
        session_a, session_b = wire.initialize(), wire.initialize()
        stream_a, stream_b = wire.listen(session_a), wire.listen(session_b)
        try:
            assert "result" in wire.request("resources/subscribe", {"uri": "sensor://temperature"}, session_a)
            assert "result" in wire.request("resources/subscribe", {"uri": "sensor://humidity"}, session_b)
            server.resource_updated("sensor://temperature")
            got_a = stream_a.collect(1)
            assert got_a == [{"jsonrpc": "2.0", "method": "notifications/resources/updated",
                              "params": {"uri": "sensor://temperature"}}]
            assert stream_b.quiet_for(0.1) == []

            # From another thread (a notebook cell), for B's URI.
            threading.Thread(target=server.resource_updated, args=("sensor://humidity",)).start()
            assert [m["params"]["uri"] for m in stream_b.collect(1)] == ["sensor://humidity"]
            assert stream_a.quiet_for(0.1) == []

            unsubscribed = wire.request("resources/unsubscribe", {"uri": "sensor://temperature"}, session_a)
            assert "result" in unsubscribed
            server.resource_updated("sensor://temperature")
            assert stream_a.quiet_for(0.3) == []
        finally:
            stream_a.close()
            stream_b.close()


def test_subscribing_to_an_unknown_uri_or_without_a_session_is_refused() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        unknown = wire.request("resources/subscribe", {"uri": "sensor://pressure"}, session)
        assert unknown["error"]["code"] == -32002
        sessionless = wire.request("resources/subscribe", {"uri": "sensor://temperature"}, None)
        assert sessionless["error"]["code"] == -32602
        assert "session" in sessionless["error"]["message"]


def test_components_added_and_removed_while_serving_announce_list_changed_on_the_get_stream() -> None:
    server = build()
    with serve(server) as url:
        wire = Wire(url)
        session_a, session_b = wire.initialize(), wire.initialize()
        stream_a, stream_b = wire.listen(session_a), wire.listen(session_b)
        try:
            def late_tool() -> str:
                """Added while serving."""
                return "late"

            threading.Thread(target=server.add_tool, args=(late_tool,)).start()
            for stream in (stream_a, stream_b):
                assert methods(stream.collect(1)) == ["notifications/tools/list_changed"]
            tools = wire.request("tools/list", {}, session_a)["result"]["tools"]
            assert [t["name"] for t in tools] == ["late_tool"]

            assert server.remove_tool("late_tool") is True
            for stream in (stream_a, stream_b):
                assert methods(stream.collect(1)) == ["notifications/tools/list_changed"]
            assert wire.request("tools/list", {}, session_a)["result"]["tools"] == []

            server.remove_resource("sensor://humidity")
            assert methods(stream_a.collect(1)) == ["notifications/resources/list_changed"]

            @server.prompt()
            def late_prompt() -> str:
                """Added while serving."""
                return "hello"

            # B also holds the resources/list_changed sent above: two messages, the prompt one last.
            assert methods(stream_b.collect(2))[-1:] == ["notifications/prompts/list_changed"]
        finally:
            stream_a.close()
            stream_b.close()


def test_list_changed_can_be_switched_off() -> None:
    server = MCPServer("quiet", list_changed=False)
    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize()
        stream = wire.listen(session)
        try:
            server.add_tool(lambda: "x", name="x", description="x")
            assert stream.quiet_for(0.3) == []
        finally:
            stream.close()


async def wait_for_get_streams(server: MCPServer, count: int) -> None:
    """Wait (bounded) until ``count`` sessions have their notification stream attached."""
    with anyio.fail_after(5):
        while sum(1 for s in server.core.sessions.all()
                  if s.standalone is not None and s.standalone.sink is not None) < count:
            await anyio.sleep(0.01)


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
@pytest.mark.parametrize(("transport", "endpoint"), [("http", "mcp"), ("sse", "sse")])
async def test_the_official_client_hears_updates_and_list_changes(transport: str, endpoint: str) -> None:
    server = build()
    heard: dict[str, list[Any]] = {"A": [], "B": []}

    def recorder(name: str) -> Any:
        async def on_message(message: Any) -> None:
            if not isinstance(message, Exception):
                heard[name].append(message)
        return on_message

    def greet() -> str:
        """Added while serving."""
        return "hi"

    with serve(server) as url, anyio.fail_after(30):
        async with mcp_client(url + endpoint, transport=transport, message_handler=recorder("A")) as a, \
                mcp_client(url + endpoint, transport=transport, message_handler=recorder("B")) as b:
            await wait_for_get_streams(server, 2)
            await a.subscribe_resource("sensor://temperature")
            server.resource_updated("sensor://temperature")
            await anyio.to_thread.run_sync(functools.partial(server.add_tool, greet, name="greet"))

            def names(who: str) -> list[str]:
                return [type(m).__name__ for m in heard[who]]

            # Wait (up to 10 s; the asserts below then say what is missing) for the expected notifications
            # rather than a fixed 0.4 s. Each stream is in order: once B heard list_changed, a misrouted
            # update for B would have come first.
            with anyio.move_on_after(10):
                while not ({"ResourceUpdatedNotification", "ToolListChangedNotification"} <= set(names("A"))
                           and "ToolListChangedNotification" in names("B")):
                    await anyio.sleep(0.02)
            assert await b.list_tools()  # B still works
    names_a, names_b = names("A"), names("B")
    assert "ResourceUpdatedNotification" in names_a
    assert "ResourceUpdatedNotification" not in names_b
    assert "ToolListChangedNotification" in names_a
    assert "ToolListChangedNotification" in names_b
