"""The official ``mcp`` client (2.3.0) drives every feature over Streamable HTTP and legacy SSE,
served at the root and under a weber-like path prefix (the client only knows the prefixed URLs).

Issue 3, "Done when": the official Python client passes over both transports, also through a
path prefix. Legacy SSE must announce an endpoint that keeps the prefix (the 0.4.x package lost it).
"""

from __future__ import annotations

import anyio
import pytest
from mcp import types
from stream_wire import Wire
from support import mcp_client, serve

from nanohubmcp import MCPServer

PREFIX = "/weber/1/abc/2"


def build() -> MCPServer:
    server = MCPServer("both-transports", instructions="Try add.")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.resource("data://motd", mime_type="text/plain")
    def motd() -> str:
        """Message of the day."""
        return "hello from the server"

    @server.resource("data://planets/{name}")
    def planet(name: str) -> dict:
        """One planet."""
        return {"name": name, "moons": {"earth": 1, "mars": 2}.get(name, 0)}

    @server.prompt()
    def greet(who: str, style: str = "plain") -> str:
        """Greet someone."""
        return f"Say hello to {who} ({style})"

    @server.completion(prompt="greet", argument="who")
    def who_values(value: str) -> list[str]:
        return [w for w in ("alice", "albert", "bob") if w.startswith(value)]

    @server.completion(template="data://planets/{name}", argument="name")
    def planet_names(value: str) -> list[str]:
        return [p for p in ("mercury", "mars", "earth") if p.startswith(value)]

    return server


async def exercise(url: str, transport: str) -> None:
    async with mcp_client(url, transport=transport) as client:
        assert client.initialize_result.server_info.name == "both-transports"
        assert client.instructions == "Try add."

        tools = await client.list_tools()
        assert [t.name for t in tools.tools] == ["add"]
        added = await client.call_tool("add", {"a": 2, "b": 40})
        assert not added.is_error
        assert added.content[0].text == "42"

        resources = await client.list_resources()
        assert [str(r.uri) for r in resources.resources] == ["data://motd"]
        motd = await client.read_resource("data://motd")
        assert motd.contents[0].text == "hello from the server"
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["data://planets/{name}", "nanohubmcp://results/{id}{?part}"]
        mars = await client.read_resource("data://planets/mars")
        assert '"moons":2' in mars.contents[0].text.replace(" ", "")

        prompts = await client.list_prompts()
        assert [p.name for p in prompts.prompts] == ["greet"]
        got = await client.get_prompt("greet", {"who": "Ada"})
        assert got.messages[0].content.text == "Say hello to Ada (plain)"

        by_prompt = await client.complete(types.PromptReference(type="ref/prompt", name="greet"),
                                          {"name": "who", "value": "al"})
        assert by_prompt.completion.values == ["alice", "albert"]
        by_template = await client.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="data://planets/{name}"),
            {"name": "name", "value": "m"})
        assert by_template.completion.values == ["mercury", "mars"]


@pytest.mark.anyio
@pytest.mark.parametrize(("transport", "endpoint"), [("http", "mcp"), ("sse", "sse")])
@pytest.mark.parametrize("prefix", ["", PREFIX])
async def test_every_feature_through_the_official_client(transport: str, endpoint: str, prefix: str) -> None:
    with serve(build(), path_prefix=prefix) as url, anyio.fail_after(30):
        assert url.endswith(prefix + "/")
        await exercise(url + endpoint, transport)


def test_the_prefix_is_really_in_force_and_the_legacy_endpoint_keeps_it() -> None:
    with serve(build(), path_prefix=PREFIX) as url:
        root = url[: -len(PREFIX) - 1] + "/"
        bare = Wire(root)
        assert bare.send("GET", "/sse", None, {"Accept": "text/event-stream"}).status == 404
        events, endpoint = Wire(url).legacy()
        try:
            assert endpoint.startswith(PREFIX + "/messages/?session_id="), endpoint
        finally:
            events.close()
