"""trial69 T69-7: a REST call of a tool that asks the client (``ctx.elicit``, ``ctx.sample``) answered 500 with
``elicitation/create needs a session: initialize first and send the Mcp-Session-Id header``, advice a REST
caller cannot follow (REST has no session). It now answers 400, saying the tool asks the client and that only a
call over MCP can answer. A ``POST /`` call without a session keeps its own text. Real server, plain HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest
from support import serve

from nanohubmcp import Context, MCPServer


def build() -> MCPServer:
    server = MCPServer("rest-asks", provenance=False)

    @server.tool()
    async def ask_name(ctx: Context) -> str:
        """Ask the user's name."""
        answer = await ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        return f"hello {answer}"

    return server


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve(build()) as url:
        yield url


def test_rest_answers_400_saying_to_call_the_tool_over_mcp(base: str) -> None:
    reply = httpx2.post(f"{base}tools/ask_name", json={}, timeout=10)
    assert (reply.status_code, reply.json()) == (400, {"error": (
        "this tool asks the client (elicitation/create), which a REST call cannot answer: call it over MCP (the "
        "/mcp endpoint) from a client that supports it")})


def test_a_sessionless_json_rpc_call_keeps_its_own_text(base: str) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_name", "arguments": {}}}
    reply = httpx2.post(base, json=message, headers={"MCP-Protocol-Version": "2025-11-25"}, timeout=10)
    result = reply.json()["result"]
    assert result["isError"] is True
    assert "needs a session" in result["content"][0]["text"]
