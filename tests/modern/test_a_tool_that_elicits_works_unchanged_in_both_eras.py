"""The same functions, written once, ask the user in both eras: through a server->client request in a
2025-11-25 session, through multi round-trip in a 2026-07-28 call. Sync and async tools, a prompt,
a resource, and a tool that wraps its question in ``except Exception`` all behave alike."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import fastmcp
import mcp_types
import pytest
from modern_wire import Wire
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def build() -> MCPServer:
    server = MCPServer("elicits")

    @server.tool()
    def sync_greet(ctx: Context) -> str:
        """Greet after asking (worker thread)."""
        return f"Hello, {ctx.elicit('Name?', NAME)['content']['name']}"

    @server.tool()
    async def async_greet(ctx: Context) -> str:
        """Greet after asking (event loop)."""
        answer = await ctx.elicit("Name?", NAME)
        return f"Hello, {answer['content']['name']}"

    @server.tool()
    def careful_greet(ctx: Context) -> str:
        """Asks inside a broad try/except, which must not swallow the round trip."""
        try:
            name = ctx.elicit("Name?", NAME)["content"]["name"]
        except Exception:
            name = "stranger"
        return f"Hello, {name}"

    @server.tool()
    def survey(ctx: Context) -> str:
        """Two questions and the roots."""
        first = ctx.elicit("Name?", NAME)["content"]["name"]
        second = ctx.elicit("Again?", NAME)["content"]["name"]
        roots = ctx.list_roots()["roots"]
        return f"{first}/{second}/{len(roots)} roots"

    @server.prompt()
    def personal(ctx: Context) -> str:
        """A prompt that asks for a name first."""
        return f"Write a poem for {ctx.elicit('Name?', NAME)['content']['name']}"

    @server.resource("data://profile")
    def profile(ctx: Context) -> dict[str, Any]:
        """A resource that asks for a name first."""
        return {"name": ctx.elicit("Name?", NAME)["content"]["name"]}

    @server.tool()
    def login(ctx: Context) -> str:
        """A URL-mode elicitation."""
        return ctx.elicit_url("Sign in", "https://example.org/login")["action"]

    return server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(build()) as base:
        yield base


async def answer_ada(context: Any, params: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={"name": "Ada"})


async def roots(context: Any) -> mcp_types.ListRootsResult:
    return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri="file:///work")])


TOOLS = {"sync_greet": "Hello, Ada", "async_greet": "Hello, Ada", "careful_greet": "Hello, Ada",
         "survey": "Ada/Ada/1 roots"}


@pytest.mark.anyio
async def test_handshake_era_asks_through_the_session(url: str) -> None:
    async with mcp_client(url + "mcp", elicitation_callback=answer_ada, list_roots_callback=roots) as session:
        for tool, expected in TOOLS.items():
            result = await session.call_tool(tool, {})
            assert (result.is_error, result.content[0].text) == (False, expected), tool
        prompt = await session.get_prompt("personal", {})
        assert prompt.messages[0].content.text == "Write a poem for Ada"
        contents = (await session.read_resource("data://profile")).contents
        assert contents[0].text == '{"name":"Ada"}'


def drive(wire: Wire, method: str, params: dict[str, Any],
          answers: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Retry ``method`` answering each input request, like a 2026 client; returns (result, rounds)."""
    extra: dict[str, Any] = {}
    for rounds in range(1, 10):
        result = wire.call(method, {**params, **extra}).result
        if result["resultType"] != "input_required":
            return result, rounds
        responses = {key: answers[req["method"]] for key, req in result["inputRequests"].items()}
        extra = {"inputResponses": responses, "requestState": result["requestState"]}
    raise AssertionError("too many rounds")


ANSWERS = {"elicitation/create": {"action": "accept", "content": {"name": "Ada"}},
           "roots/list": {"roots": [{"uri": "file:///work"}]}}


def test_stateless_era_asks_by_multi_round_trip(url: str) -> None:
    wire = Wire(url + "mcp")
    rounds_needed = {"sync_greet": 2, "async_greet": 2, "careful_greet": 2, "survey": 4}
    for tool, expected in TOOLS.items():
        result, rounds = drive(wire, "tools/call", {"name": tool, "arguments": {}}, ANSWERS)
        assert result["content"][0]["text"] == expected, tool
        assert rounds == rounds_needed[tool], tool
    prompt, _ = drive(wire, "prompts/get", {"name": "personal"}, ANSWERS)
    assert prompt["messages"][0]["content"]["text"] == "Write a poem for Ada"
    read, _ = drive(wire, "resources/read", {"uri": "data://profile"}, ANSWERS)
    assert read["contents"][0]["text"] == '{"name":"Ada"}'
    assert (read["ttlMs"], read["cacheScope"]) == (0, "private")


def test_input_requests_are_sent_only_for_declared_capabilities(url: str) -> None:
    reply = Wire(url + "mcp", caps={"sampling": {}}).call("tools/call", {"name": "sync_greet"})
    assert reply.status == 400
    assert reply.error["code"] == -32021
    assert reply.error["data"] == {"requiredCapabilities": {"elicitation": {}}}


def test_url_elicitation_needs_its_capability_and_drops_the_2025_elicitation_id(url: str) -> None:
    refused = Wire(url + "mcp", caps={"elicitation": {}}).call("tools/call", {"name": "login"})
    assert refused.error["data"] == {"requiredCapabilities": {"elicitation": {"url": {}}}}
    asked = Wire(url + "mcp", caps={"elicitation": {"url": {}}}).call("tools/call", {"name": "login"}).result
    request = asked["inputRequests"]["elicitation_1"]
    assert request["params"] == {"mode": "url", "message": "Sign in", "url": "https://example.org/login"}


@pytest.mark.anyio
async def test_fastmcp_drives_the_round_trips_itself(url: str) -> None:
    async def elicit(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
        return {"name": "Ada"}

    async def list_roots(context: Any) -> list[str]:
        return ["file:///work"]

    async with fastmcp.Client(url + "mcp", elicitation_handler=elicit, roots=list_roots) as client:
        for tool, expected in TOOLS.items():
            result = await client.call_tool(tool, {})
            assert result.content[0].text == expected, tool
