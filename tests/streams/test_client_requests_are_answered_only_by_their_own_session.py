"""Elicitation, sampling and roots: server→client requests of the handshake era.

- With the official client's callbacks they work over Streamable HTTP and legacy SSE, from sync
  tools (worker threads) and ``async def`` tools alike.
- A client that did not declare the capability gets a clear ``isError`` result, not a hang.
- An answer POSTed under ANOTHER session (raw HTTP: the request id is read from session A's
  stream, the response is posted with session B's id) is not taken: A's tool keeps waiting for
  A, and gets A's answer when A replies (the 0.4.x package let B hijack it).
- No answer within the timeout is a clear tool error naming the request and the time.

Source: MCP 2025-11-25, Client § Elicitation / Sampling / Roots; Transports § Streamable HTTP.
Issue 3, "Done when": an elicitation answered from another session is refused.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import types
from stream_wire import Wire
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

ALICE = {"action": "accept", "content": {"name": "alice"}}
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def build(tool_timeout: float | None = None) -> MCPServer:
    server = MCPServer("client-requests", tool_timeout=tool_timeout)

    @server.tool()
    def ask_name(ctx: Context) -> str:
        """Ask the user for a name (worker thread)."""
        answer = ctx.elicit("What is your name?", NAME_SCHEMA, timeout=10)
        return json.dumps(answer, sort_keys=True)

    @server.tool()
    async def ask_name_async(ctx: Context) -> str:
        """Ask the user for a name (event loop)."""
        answer = await ctx.elicit("What is your name?", NAME_SCHEMA, timeout=10)
        return json.dumps(answer, sort_keys=True)

    @server.tool()
    def ask_briefly(ctx: Context) -> str:
        """Ask with a short timeout."""
        ctx.elicit("Quick: yes or no?", timeout=0.5)
        return "answered"

    @server.tool()
    async def ask_briefly_async(ctx: Context) -> str:
        """Ask with a short timeout, on the loop."""
        await ctx.elicit("Quick: yes or no?", timeout=0.5)
        return "answered"

    @server.tool()
    def haiku(ctx: Context) -> str:
        """Ask the client's model for a haiku."""
        reply = ctx.sample("Write a haiku about tornadoes")
        return f"{reply['model']}: {reply['content']['text']}"

    @server.tool()
    async def roots(ctx: Context) -> list[str]:
        """List the client's roots."""
        listed = await ctx.list_roots()
        return [r["uri"] for r in listed["roots"]]

    return server


async def elicit_alice(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    assert params.message == "What is your name?"
    return types.ElicitResult(action="accept", content={"name": "alice"})


async def sample_haiku(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    assert params.messages[0].content.text == "Write a haiku about tornadoes"
    return types.CreateMessageResult(role="assistant", model="test-model",
                                     content=types.TextContent(type="text", text="wind spins the old barn"))


async def list_two_roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///data/a", name="a"),
                                        types.Root(uri="file:///data/b", name="b")])


@pytest.mark.anyio
@pytest.mark.parametrize(("transport", "endpoint"), [("http", "mcp"), ("sse", "sse")])
async def test_elicitation_sampling_and_roots_work_with_the_official_clients_callbacks(
        transport: str, endpoint: str) -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + endpoint, transport=transport, elicitation_callback=elicit_alice,
                              sampling_callback=sample_haiku, list_roots_callback=list_two_roots) as client:
            for tool in ("ask_name", "ask_name_async"):
                result = await client.call_tool(tool, {})
                assert not result.is_error, result
                assert json.loads(result.content[0].text) == ALICE
            sampled = await client.call_tool("haiku", {})
            assert sampled.content[0].text == "test-model: wind spins the old barn"
            listed = await client.call_tool("roots", {})
            assert json.loads(listed.content[0].text) == ["file:///data/a", "file:///data/b"]


@pytest.mark.anyio
@pytest.mark.parametrize(("transport", "endpoint"), [("http", "mcp"), ("sse", "sse")])
async def test_a_client_without_the_capability_gets_a_clear_tool_error(transport: str, endpoint: str) -> None:
    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + endpoint, transport=transport) as client:
            for tool, capability in (("ask_name", "elicitation"), ("ask_name_async", "elicitation"),
                                     ("haiku", "sampling"), ("roots", "roots")):
                with anyio.fail_after(5):  # refused at once, never a hang
                    result = await client.call_tool(tool, {})
                assert result.is_error
                assert f"did not declare the '{capability}' capability" in result.content[0].text


def test_an_answer_posted_under_another_session_is_not_taken() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session_a = wire.initialize(capabilities={"elicitation": {}})
        session_b = wire.initialize(capabilities={"elicitation": {}})
        call_id, stream = wire.stream_call("tools/call", {"name": "ask_name", "arguments": {}}, session_a)
        try:
            asked = stream.next_message()
            assert asked is not None
            assert asked["method"] == "elicitation/create"
            # B (and a sessionless client) answer A's request: neither may reach A's tool.
            intruder = wire.respond(asked["id"], {"action": "accept", "content": {"name": "mallory"}},
                                    session_b)
            assert intruder.status in (202, 400, 404)
            stray = wire.respond(asked["id"], {"action": "accept", "content": {"name": "eve"}}, None)
            assert stray.status in (202, 400, 404)
            assert stream.quiet_for(0.5) == []  # A's tool still waits
            assert wire.respond(asked["id"], {"action": "accept", "content": {"name": "alice"}},
                                session_a).status == 202
            before, final = stream.until(lambda m: m.get("id") == call_id)
            assert before == []
            assert json.loads(final["result"]["content"][0]["text"]) == {
                "action": "accept", "content": {"name": "alice"}}
            # A second answer to the same request (a replay) changes nothing and breaks nothing.
            assert wire.respond(asked["id"], {"action": "decline"}, session_a).status in (202, 400, 404)
        finally:
            stream.close()


def test_on_legacy_sse_an_answer_from_another_session_is_not_taken() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        stream_a, endpoint_a = wire.legacy()
        stream_b, endpoint_b = wire.legacy()
        try:
            init = {"protocolVersion": "2024-11-05", "capabilities": {"elicitation": {}},
                    "clientInfo": {"name": "t", "version": "0"}}
            for stream, endpoint in ((stream_a, endpoint_a), (stream_b, endpoint_b)):
                assert wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                                   "params": init}).status == 202
                assert stream.next_message()["id"] == 1
                wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            ask = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "ask_name", "arguments": {}}}
            assert wire.legacy_post(endpoint_a, ask).status == 202
            asked = stream_a.next_message()
            assert asked["method"] == "elicitation/create"
            answer = {"jsonrpc": "2.0", "id": asked["id"],
                      "result": {"action": "accept", "content": {"name": "m"}}}
            assert wire.legacy_post(endpoint_b, answer).status in (202, 400, 404)
            assert stream_a.quiet_for(0.5) == []
            assert stream_b.quiet_for(0.1) == []  # nothing of A's ever shows up on B's stream
            answer["result"] = {"action": "accept", "content": {"name": "alice"}}
            assert wire.legacy_post(endpoint_a, answer).status == 202
            final = stream_a.next_message()
            assert final["id"] == 2
            assert json.loads(final["result"]["content"][0]["text"])["content"] == {"name": "alice"}
        finally:
            stream_a.close()
            stream_b.close()


@pytest.mark.parametrize("tool_timeout", [None, 30.0])
@pytest.mark.parametrize("tool", ["ask_briefly", "ask_briefly_async"])
def test_no_answer_within_the_timeout_is_a_clear_tool_error(tool: str, tool_timeout: float | None) -> None:
    # Regression: the client's TimeoutError was taken for the call's own time limit
    # ("unsupported format string passed to NoneType.__format__" without tool_timeout,
    # "did not finish within 30 s" with it).
    with serve(build(tool_timeout)) as url:
        wire = Wire(url)
        session = wire.initialize(capabilities={"elicitation": {}})
        call_id, stream = wire.stream_call("tools/call", {"name": tool, "arguments": {}}, session)
        try:
            asked = stream.next_message()
            assert asked["method"] == "elicitation/create"
            _, final = stream.until(lambda m: m.get("id") == call_id, timeout=5)
            assert final["result"]["isError"] is True
            assert final["result"]["content"][0]["text"] == \
                "the client did not answer elicitation/create within 0.5 s"
            # A late answer finds nothing waiting and is harmless.
            assert wire.respond(asked["id"], {"action": "accept", "content": {"value": "yes"}},
                                session).status in (202, 400, 404)
        finally:
            stream.close()


def test_a_client_refusal_is_a_tool_error_that_says_so() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize(capabilities={"elicitation": {}})
        call_id, stream = wire.stream_call("tools/call", {"name": "ask_name", "arguments": {}}, session)
        try:
            asked = stream.next_message()
            refusal = {"code": -1, "message": "user closed the form"}
            wire.post({"jsonrpc": "2.0", "id": asked["id"], "error": refusal}, session)
            _, final = stream.until(lambda m: m.get("id") == call_id)
            assert final["result"]["isError"] is True
            assert "user closed the form" in final["result"]["content"][0]["text"]
        finally:
            stream.close()


def test_a_call_answered_as_json_cannot_carry_the_request_and_says_how_to_fix_it() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize(capabilities={"elicitation": {}})
        reply = wire.request("tools/call", {"name": "ask_name", "arguments": {}}, session,
                             accept="application/json")
        assert reply["result"]["isError"] is True
        assert "text/event-stream" in reply["result"]["content"][0]["text"]
