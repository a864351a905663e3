"""Review r29 #3: an ``elicitation/create`` (or ``sampling/createMessage``) the call sends goes to a Streamable
HTTP client as one SSE event; a 2,000,000-character ``ctx.elicit`` message passed the official ``mcp`` client's
1 MiB ("Server-sent event exceeded the 1048576 byte limit") and the whole call was lost. Now such an ask is not
sent: the tool gets a ToolError naming the limit and what to shorten, which it may catch; an ask within the limit
goes as before. A real server over HTTP, the official client with elicitation and sampling callbacks."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import ToolError

pytestmark = pytest.mark.timeout(120)

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


def build() -> MCPServer:
    server = MCPServer("asks")

    @server.tool()
    def asks(size: int, ctx: Context) -> str:
        """Elicit with a message of ``size`` characters."""
        return str(ctx.elicit("q" * size, SCHEMA)["action"])

    @server.tool()
    async def samples(size: int, ctx: Context) -> str:
        """Sample with a prompt of ``size`` characters."""
        return str((await ctx.sample("p" * size))["model"])

    @server.tool()
    def asks_and_goes_on(ctx: Context) -> str:
        """An oversized ask caught: the call goes on."""
        try:
            ctx.elicit("é" * 600_000, SCHEMA)  # 1.2 MB as UTF-8
        except ToolError as exc:
            return f"caught: {exc}"
        return "sent"

    return server


def call_all(calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[str]]:
    from mcp import types

    seen: list[str] = []

    async def elicit(context: Any, params: Any) -> Any:
        seen.append(f"elicit {len(params.message)}")
        return types.ElicitResult(action="accept", content={"ok": True})

    async def sample(context: Any, params: Any) -> Any:
        seen.append(f"sample {len(params.messages[0].content.text)}")
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="hi"),
                                         model="m")

    with serve(build()) as url:
        async def main() -> list[Any]:
            with anyio.fail_after(60):
                async with mcp_client(url + "mcp", elicitation_callback=elicit, sampling_callback=sample) as client:
                    return [await client.call_tool(name, arguments) for name, arguments in calls]

        return anyio.run(main), seen


def test_an_ask_over_one_event_is_a_tool_error_and_one_within_it_is_sent() -> None:
    results, seen = call_all([("asks", {"size": 2_000_000}), ("samples", {"size": 2_000_000}),
                              ("asks_and_goes_on", {}), ("asks", {"size": 500_000}), ("samples", {"size": 500_000})])
    too_long, too_long_sample, caught, asked, sampled = results
    assert too_long.is_error, too_long
    text = too_long.content[0].text
    assert "the elicitation/create request is 2000" in text, text
    assert "over the 1044480 bytes one request may carry" in text, text
    assert "1048576 bytes, 1 MiB" in text, text
    assert text.endswith("shorten its message (or its requestedSchema)"), text
    assert too_long_sample.is_error, too_long_sample
    assert too_long_sample.content[0].text.endswith("shorten its messages (or its systemPrompt)"), too_long_sample
    assert not caught.is_error, caught
    assert caught.content[0].text.startswith("caught: cannot ask the client: the elicitation/create request is "
                                             "1200"), caught
    assert (asked.is_error, asked.content[0].text) == (False, "accept"), asked
    assert (sampled.is_error, sampled.content[0].text) == (False, "m"), sampled
    assert seen == ["elicit 500000", "sample 500000"]  # the refused asks never reached the client
