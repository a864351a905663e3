"""Over real HTTP, a client whose answer to the server's request is not of the spec's shape: the
tool hears ``ClientRequestError`` naming what is wrong, and the session keeps serving.

The official ``mcp`` client checks its callbacks' results itself and sends a JSON-RPC error instead
of a malformed one, so these clients speak raw HTTP (``stream_wire``): Streamable HTTP and the legacy
HTTP+SSE transport, whose answers reach the server by different handlers and meet in one place.
Trial20 F5.

Source: MCP 2025-11-25, Client § Elicitation (``ElicitResult``), § Sampling, § Roots.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from stream_wire import Wire
from support import serve

from nanohubmcp import ClientRequestError, Context, MCPServer

pytestmark = pytest.mark.timeout(60)

NAME = {"type": "object", "properties": {"name": {"type": "string"}}}


def build() -> MCPServer:
    server = MCPServer("raw-answers")

    @server.tool()
    def ask_name(ctx: Context) -> str:
        """Ask for a name; say what came back."""
        try:
            return json.dumps(ctx.elicit("Name?", NAME, timeout=10), sort_keys=True)
        except ClientRequestError as exc:
            return f"refused: {exc}"

    @server.tool()
    async def ask_name_async(ctx: Context) -> str:
        """The same on the event loop, with no guard: the trial's tool."""
        answer = await ctx.elicit("Name?", NAME, timeout=10)
        return str(answer["action"])

    @server.tool()
    def roots(ctx: Context) -> str:
        """The client's roots."""
        return json.dumps(ctx.list_roots(timeout=10))

    return server


NO_ACTION = "the client's answer to elicitation/create has no \"action\" (accept, decline or cancel)"


def ask(wire: Wire, session: str, tool: str, result: Any) -> dict[str, Any]:
    """Call ``tool``, answer its request with ``result``; the call's result."""
    call_id, stream = wire.stream_call("tools/call", {"name": tool, "arguments": {}}, session)
    try:
        asked = stream.next_message()
        assert asked is not None
        assert wire.post({"jsonrpc": "2.0", "id": asked["id"], "result": result}, session).status == 202
        _, final = stream.until(lambda m: m.get("id") == call_id)
        return dict(final["result"])
    finally:
        stream.close()


def test_streamable_http_answers_without_an_action_are_refused_and_the_session_goes_on() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize(capabilities={"elicitation": {}, "roots": {}})
        assert ask(wire, session, "ask_name", {"foo": 1})["content"][0]["text"] == f"refused: {NO_ACTION}"
        unguarded = ask(wire, session, "ask_name_async", {"foo": 1})
        assert (unguarded["isError"], unguarded["content"][0]["text"]) == (True, NO_ACTION)
        declined = ask(wire, session, "ask_name", {"action": "decline", "content": {"name": "x"}})
        assert json.loads(declined["content"][0]["text"]) == {"action": "decline", "content": {"name": "x"}}
        listed = ask(wire, session, "roots", {"roots": [{"uri": "https://example.org"}]})
        assert listed["content"][0]["text"] == ("the client's answer to roots/list has roots[0].uri "
                                                "\"https://example.org\": a root is a file:// URI")
        # The session still serves: a good answer gets through.
        good = ask(wire, session, "ask_name", {"action": "accept", "content": {"name": "Ada"}})
        assert json.loads(good["content"][0]["text"]) == {"action": "accept", "content": {"name": "Ada"}}


def test_legacy_sse_answers_of_the_wrong_shape_are_refused_alike() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        stream, endpoint = wire.legacy()
        try:
            init = {"protocolVersion": "2024-11-05", "capabilities": {"elicitation": {}},
                    "clientInfo": {"name": "t", "version": "0"}}
            assert wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                               "params": init}).status == 202
            assert stream.next_message()["id"] == 1
            wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            for call_id, answer, text in ((2, ["accept"], "refused: the client's answer to elicitation/create is "
                                           "a list, not an object {\"action\": \"accept\"|\"decline\"|\"cancel\", "
                                           "\"content\"?: {...}}"),
                                          (3, {"foo": 1}, f"refused: {NO_ACTION}")):
                call = {"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
                        "params": {"name": "ask_name", "arguments": {}}}
                assert wire.legacy_post(endpoint, call).status == 202
                asked = stream.next_message()
                assert asked["method"] == "elicitation/create"
                assert wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": asked["id"], "result": answer}).status == 202
                final = stream.next_message()
                assert final["id"] == call_id
                assert final["result"]["content"][0]["text"] == text
        finally:
            stream.close()
