"""One running server, two clients in one test, calls interleaved: ``fastmcp.Client`` 4.x (it probes
``server/discover`` and speaks the stateless 2026-07-28 era, input requests by multi round-trip) and
the official ``mcp`` client (``initialize``, a 2025-11-25 session, server->client requests). Both
get the same tool results, resources and prompts."""

from __future__ import annotations

import asyncio
from typing import Any

import fastmcp
import mcp_types
import pytest
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def build() -> MCPServer:
    server = MCPServer("two-clients", instructions="Tools for both eras.")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @server.tool()
    def stats(values: list[float]) -> dict[str, float]:
        """Mean and spread of a list."""
        mean = sum(values) / len(values)
        return {"mean": mean, "range": max(values) - min(values)}

    @server.tool()
    def greet_user(ctx: Context, punctuation: str = "!") -> str:
        """Ask the user's name, then greet them (runs on a worker thread)."""
        answer = ctx.elicit("What is your name?", NAME)
        return f"Hello, {answer['content']['name']}{punctuation}"

    @server.tool()
    async def capital(ctx: Context, country: str) -> str:
        """Ask the client's model for a capital (runs on the event loop)."""
        reply = await ctx.sample(f"What is the capital of {country}?")
        return f"{country}: {reply['content']['text']}"

    @server.tool()
    def fails() -> str:
        """Always fails."""
        raise ValueError("no luck")

    @server.tool()
    def era(ctx: Context) -> str:
        """The protocol version of this call."""
        return ctx.protocol_version

    @server.resource("data://motd", mime_type="text/plain")
    def motd() -> str:
        """Message of the day."""
        return "stay curious"

    @server.prompt()
    def explain(topic: str) -> str:
        """Explain a topic."""
        return f"Explain {topic} simply."

    return server


async def fastmcp_elicit(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
    return {"name": "Ada"}


async def fastmcp_sample(messages: Any, params: Any, context: Any) -> str:
    return "Paris"


async def mcp_elicit(context: Any, params: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={"name": "Ada"})


async def mcp_sample(context: Any, params: Any) -> mcp_types.CreateMessageResult:
    text = mcp_types.TextContent(type="text", text="Paris")
    return mcp_types.CreateMessageResult(role="assistant", content=text, model="stand-in")


def blocks(content: list[Any]) -> list[dict[str, Any]]:
    return [block.model_dump(exclude_none=True, by_alias=True) for block in content]


CALLS = [
    ("add", {"a": 2, "b": 3.5}),
    ("stats", {"values": [1, 2, 6]}),
    ("greet_user", {}),
    ("capital", {"country": "France"}),
    ("greet_user", {"punctuation": "?"}),
    ("fails", {}),
]


@pytest.mark.anyio
@pytest.mark.timeout(60)
async def test_both_clients_get_the_same_results_interleaved() -> None:
    with serve(build()) as url:
        async with (
            fastmcp.Client(url + "mcp", elicitation_handler=fastmcp_elicit,
                           sampling_handler=fastmcp_sample) as modern,
            mcp_client(url + "mcp", elicitation_callback=mcp_elicit, sampling_callback=mcp_sample) as classic,
        ):
            eras = await asyncio.gather(modern.call_tool("era", {}), classic.call_tool("era", {}))
            assert [r.content[0].text for r in eras] == ["2026-07-28", "2025-11-25"]

            modern_tools = [t.name for t in await modern.list_tools()]
            assert modern_tools == [t.name for t in (await classic.list_tools()).tools]
            for name, arguments in CALLS:  # one after the other, alternating which client goes first
                first, second = (modern, classic) if len(name) % 2 else (classic, modern)
                a = await (first.call_tool(name, arguments, raise_on_error=False) if first is modern
                           else first.call_tool(name, arguments))
                b = await (second.call_tool(name, arguments, raise_on_error=False) if second is modern
                           else second.call_tool(name, arguments))
                assert blocks(a.content) == blocks(b.content), name
                assert a.is_error == b.is_error, name
                assert a.structured_content == b.structured_content, name

            # and concurrently, several calls of each client in flight at once
            pairs = [(modern.call_tool(name, args, raise_on_error=False), classic.call_tool(name, args))
                     for name, args in CALLS]
            results = await asyncio.gather(*(call for pair in pairs for call in pair))
            for i in range(0, len(results), 2):
                assert blocks(results[i].content) == blocks(results[i + 1].content)

            modern_text = (await modern.read_resource("data://motd"))[0].text
            classic_text = (await classic.read_resource("data://motd")).contents[0].text
            assert modern_text == classic_text == "stay curious"
            modern_prompt = await modern.get_prompt("explain", {"topic": "entropy"})
            classic_prompt = await classic.get_prompt("explain", {"topic": "entropy"})
            assert blocks([m.content for m in modern_prompt.messages]) == \
                blocks([m.content for m in classic_prompt.messages])
