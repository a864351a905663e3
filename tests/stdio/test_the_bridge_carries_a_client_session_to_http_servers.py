"""``nanohubmcp bridge URL`` gives a stdio client the session it would get over HTTP: the official
client (2025-11-25, with a server→client elicitation and progress on the call's SSE stream, and
change notifications on the session's GET stream) through Streamable HTTP and through legacy SSE,
fastmcp (stateless 2026-07-28, its headers built by the bridge) through Streamable HTTP, an
example's tools; a URL that is not a server is a clear error, not a hang."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any

import mcp_types
import pytest
from stdio_support import (
    EXAMPLES,
    FEATURES_APP,
    bridge_command,
    fastmcp_client,
    official_client,
    served,
    until_streaming,
)

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def mcp_elicit(context: Any, params: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={"name": "Ada"})


async def fastmcp_elicit(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
    return {"name": "Ada"}


async def drive(session: Any) -> None:
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    assert (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5.0"
    assert (await session.call_tool("count", {"steps": 2}, progress_callback=on_progress)).content[0].text == \
        "counted 2"
    assert progress == [1, 2]
    assert (await session.call_tool("greet", {})).content[0].text == "Hello, Ada!"
    assert (await session.read_resource("greeting://Ada")).contents[0].text == "Hi Ada"
    assert (await session.get_prompt("explain", {"topic": "entropy"})).messages


@pytest.mark.parametrize("endpoint", ["mcp", "sse", ""])
async def test_the_official_client_gets_its_session_through_the_bridge(endpoint: str) -> None:
    with served(FEATURES_APP) as url:
        async with official_client(bridge_command(url + endpoint), elicitation_callback=mcp_elicit) as session:
            assert (await session.call_tool("era", {})).content[0].text == "2025-11-25"
            await drive(session)


async def test_a_response_stream_the_server_ends_early_is_resumed_by_the_bridge() -> None:
    with served(FEATURES_APP) as url:
        async with official_client(bridge_command(url + "mcp")) as session:
            progress: list[float] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append(value)

            result = await session.call_tool("paced", {}, progress_callback=on_progress)
            assert result.content[0].text == "resumed"
            assert progress == [1]


async def test_change_notifications_reach_the_client_through_the_get_stream() -> None:
    from nanohubmcp.nanohub.child import load_app

    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changed.set()

    server = load_app(FEATURES_APP)
    server.start(host="127.0.0.1", port=0)
    try:
        async with official_client(bridge_command(f"{server.url}mcp"), message_handler=on_message) as session:
            await session.list_tools()
            await until_streaming(server, 20)  # the bridge opens it right after the handshake
            server.add_tool(lambda: "late", name="late_tool", description="Added after connecting.")
            await asyncio.wait_for(changed.wait(), 20)
            assert "late_tool" in [tool.name for tool in (await session.list_tools()).tools]
    finally:
        server.stop()


async def test_fastmcp_speaks_the_2026_era_through_the_bridge() -> None:
    with served(FEATURES_APP) as url:
        async with fastmcp_client(bridge_command(url + "mcp"), elicitation_handler=fastmcp_elicit) as client:
            assert (await client.call_tool("era", {})).content[0].text == "2026-07-28"
            assert (await client.call_tool("add", {"a": 1, "b": 2})).content[0].text == "3.0"
            assert (await client.call_tool("greet", {})).content[0].text == "Hello, Ada!"
            assert (await client.read_resource("greeting://Ada"))[0].text == "Hi Ada"


async def test_an_example_served_over_http_is_reached_through_the_bridge() -> None:
    with served(EXAMPLES / "simulator" / "start_mcp.py") as url:
        async with official_client(bridge_command(url + "mcp")) as session:
            tools = [tool.name for tool in (await session.list_tools()).tools]
            assert "projectile_motion" in tools
            result = await session.call_tool("projectile_motion", {"v0": 50, "angle": 45})
            assert '"range":254.842' in result.content[0].text


def test_a_url_without_a_server_fails_clearly() -> None:
    done = subprocess.run(
        bridge_command("http://127.0.0.1:9/mcp"),
        input=b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", '
              b'"capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}\n',
        capture_output=True, timeout=60, check=False)
    assert done.returncode == 0
    reply = done.stdout.decode()
    assert '"id":1' in reply
    assert "cannot connect to 127.0.0.1:9" in reply
    assert "Connection refused" in reply
    assert "is the server running?" in reply


async def test_the_token_from_mcp_token_reaches_a_server_that_requires_one() -> None:
    import os

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    token = "bridge-test-token-0123456789abcdef"
    with served(FEATURES_APP, token=token) as url:
        command = bridge_command(url + "mcp")
        with_token = StdioServerParameters(command=command[0], args=command[1:],
                                           env={**os.environ, "MCP_TOKEN": token})
        async with stdio_client(with_token) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert (await session.call_tool("add", {"a": 1, "b": 2})).content[0].text == "3.0"
        without = StdioServerParameters(command=command[0], args=command[1:],
                                        env={k: v for k, v in os.environ.items() if k != "MCP_TOKEN"})
        async with stdio_client(without) as (read, write), ClientSession(read, write) as session:
            with pytest.raises(MCPError, match=r"(?i)token|authoriz"):
                await session.initialize()


@pytest.mark.parametrize("env_token", [False, True])
def test_an_authorization_header_and_a_token_together_are_refused(env_token: bool) -> None:
    """Two sources for one header: refused with a message naming both, instead of one silently winning."""
    import os

    args = ["--header", "Authorization: Bearer from-header"]
    env = {**os.environ, "MCP_TOKEN": "from-env"} if env_token else {
        k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    if not env_token:
        args += ["--token", "from-flag"]
    done = subprocess.run([*bridge_command("http://127.0.0.1:9/mcp"), *args], capture_output=True, timeout=60,
                          check=False, env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert "both --header 'Authorization: ...' and --token (or $MCP_TOKEN)" in done.stderr.decode()
