"""``nanohubmcp.testing``: the clients users test their servers with, in the same process.

The server under test is a real ``MCPServer`` with a middleware, a scoped tool, a tool that reports
progress and logs, tools that elicit and sample, a resource and a prompt; the clients are the
package's own :class:`MemoryClient` (both eras, and its synchronous form) and the official ``mcp``
SDK's ``ClientSession`` and ``Client`` over :func:`memory_streams`. Trial 19 F5, F11.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from nanohubmcp import Context, MCPServer, Principal
from nanohubmcp.testing import MemoryClient, RpcError, client_session, in_memory, memory_streams

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def build() -> tuple[MCPServer, list[str]]:
    server = MCPServer("lab")
    seen: list[str] = []

    @server.middleware
    async def note(request: Any, call_next: Any) -> Any:
        seen.append(request.method)
        return await call_next(request)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def anneal(steps: int, ctx: Context) -> str:
        """Report progress and log."""
        for step in range(1, steps + 1):
            ctx.report_progress(step, steps)
        ctx.info("annealed")
        return "done"

    @server.tool()
    def greet(ctx: Context) -> str:
        """Ask the user's name."""
        answer = ctx.elicit("Your name?", NAME_SCHEMA)
        return f"hello {answer['content']['name']}" if answer["action"] == "accept" else answer["action"]

    @server.tool()
    def summarize(ctx: Context) -> str:
        """Ask the client's model."""
        reply = ctx.sample({"messages": [{"role": "user", "content": {"type": "text", "text": "MCP"}}],
                            "maxTokens": 20})
        return str(reply["content"]["text"])

    @server.tool(scopes=["lab:write"])
    def reset(ctx: Context) -> str:
        """Needs lab:write."""
        assert ctx.principal is not None
        return f"reset by {ctx.principal.subject}"

    @server.resource("data://settings")
    def settings() -> dict[str, int]:
        """The settings."""
        return {"steps": 3}

    @server.prompt()
    def explain(topic: str) -> str:
        """Explain a topic."""
        return f"Explain {topic}"

    return server, seen


def accept(params: dict[str, Any]) -> dict[str, Any]:
    assert params["requestedSchema"] == NAME_SCHEMA
    return {"action": "accept", "content": {"name": "Ada"}}


async def test_the_memory_client_lists_calls_reads_and_gets_through_the_pipeline() -> None:
    server, seen = build()
    async with MemoryClient(server) as client:
        assert client.initialize_result is not None
        assert client.initialize_result["protocolVersion"] == "2025-11-25"
        assert {tool["name"] for tool in await client.list_tools()} >= {"add", "greet", "reset"}
        result = await client.call_tool("add", {"a": 1, "b": 2})
        assert result["content"][0]["text"] == "3"
        assert json.loads((await client.read_resource("data://settings"))[0]["text"]) == {"steps": 3}
        prompt = await client.get_prompt("explain", {"topic": "MCP"})
        assert prompt["messages"][0]["content"]["text"] == "Explain MCP"
        refused = await client.call_tool("add", {"a": "one", "b": 2})  # the schema's refusal, as on the wire
        assert refused["isError"] is True
        with pytest.raises(RpcError) as unknown:
            await client.call_tool("no_such_tool")
        assert unknown.value.code == -32602
    assert "tools/call" in seen  # the application's middleware ran
    assert "resources/read" in seen


async def test_progress_and_log_messages_arrive_in_order() -> None:
    server, _ = build()
    async with MemoryClient(server, log_level="info") as client:
        assert (await client.call_tool("anneal", {"steps": 3}, progress=True))["content"][0]["text"] == "done"
    assert [note["progress"] for note in client.notifications("notifications/progress")] == [1, 2, 3]
    assert [note["data"] for note in client.notifications("notifications/message")] == ["annealed"]


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
async def test_elicitation_and_sampling_are_answered_by_the_handlers_in_both_eras(version: str) -> None:
    server, _ = build()

    async def sample(params: dict[str, Any]) -> dict[str, Any]:
        assert params["maxTokens"] == 20
        return {"role": "assistant", "content": {"type": "text", "text": "a protocol"}, "model": "test"}

    async with MemoryClient(server, version=version, elicitation=accept, sampling=sample) as client:
        assert (await client.call_tool("greet"))["content"][0]["text"] == "hello Ada"
        assert (await client.call_tool("summarize"))["content"][0]["text"] == "a protocol"


async def test_without_a_handler_the_tool_hears_the_client_cannot_answer() -> None:
    server, _ = build()
    async with MemoryClient(server) as client:
        result = await client.call_tool("greet")
    assert result["isError"] is True
    assert "elicitation" in result["content"][0]["text"]


async def test_the_principal_is_the_caller_scopes_are_checked_against() -> None:
    server, _ = build()
    async with MemoryClient(server, principal=Principal("ada", frozenset({"lab:write"}))) as client:
        assert (await client.call_tool("reset"))["content"][0]["text"] == "reset by ada"
    async with MemoryClient(server, principal=Principal("bob", frozenset({"lab:read"}))) as client:
        with pytest.raises(RpcError) as refused:
            await client.call_tool("reset")
    assert "lab:write" in refused.value.message


def test_an_unknown_version_is_refused_when_the_client_is_made() -> None:
    server, _ = build()
    with pytest.raises(ValueError, match="2025-11-25"):
        MemoryClient(server, version="1999-01-01")


def test_in_memory_serves_synchronous_tests() -> None:
    server, _ = build()
    with in_memory(server, elicitation=accept) as client:
        assert client.call_tool("add", {"a": 2, "b": 2})["content"][0]["text"] == "4"
        assert client.call_tool("greet")["content"][0]["text"] == "hello Ada"
        assert client.messages[0]["method"] == "elicitation/create"


async def test_the_official_client_session_talks_to_the_server_in_memory() -> None:
    import mcp.types as types

    server, seen = build()
    progress: list[float] = []

    async def elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content={"name": "Grace"})

    async def reported(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async with client_session(server, elicitation_callback=elicit,
                              principal=Principal("ada", frozenset({"lab:write"}))) as session:
        assert (await session.call_tool("add", {"a": 1, "b": 2})).content[0].text == "3"
        assert (await session.call_tool("greet", {})).content[0].text == "hello Grace"
        assert (await session.call_tool("reset", {})).content[0].text == "reset by ada"
        await session.call_tool("anneal", {"steps": 2}, progress_callback=reported)
        assert (await session.read_resource("data://settings")).contents[0].text == '{"steps":3}'
    assert progress == [1, 2]
    assert seen.count("tools/call") == 4


async def test_the_official_client_speaks_the_stateless_era_over_memory_streams() -> None:
    import mcp
    import mcp.types as types

    server, _ = build()

    async def elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content={"name": "Lin"})

    async with mcp.Client(memory_streams(server), mode="2026-07-28", elicitation_callback=elicit) as client:
        assert (await client.call_tool("greet", {})).content[0].text == "hello Lin"


def test_server_call_of_a_tool_that_elicits_points_to_the_in_memory_client() -> None:
    server, _ = build()
    server.start(host="127.0.0.1", port=0)
    try:
        result = server.call("greet", {})
    finally:
        server.stop()
    assert result.is_error
    assert "server.call has no client" in result.text
    assert "nanohubmcp.testing" in result.text
    assert "Mcp-Session-Id" not in result.text


def test_importing_the_package_loads_neither_the_test_clients_nor_mcp() -> None:
    probe = ("import sys, nanohubmcp; before = 'nanohubmcp.testing' in sys.modules; import nanohubmcp.testing; "
             "print(before, 'mcp' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["False", "False"]
