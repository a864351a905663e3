"""A 2026-07-28 ``tools/call`` of a tool without a Context parameter skips the multi round-trip
set-up (only a tool with ``ctx`` can ask for input), but not one check of it: a retry's
``requestState`` and ``inputResponses`` are verified whatever the tool, and a tool that raises
:class:`~nanohubmcp.InputRequired` itself still answers ``input_required`` with a state that its
retry is accepted with, once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from modern_wire import Wire
from support import serve

from nanohubmcp import Context, InputRequired, MCPServer

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ASK = {"who": {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": NAME}}}


def build() -> MCPServer:
    server = MCPServer("no-context", state_secret="a shared secret of enough bytes")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Sum of two numbers."""
        return a + b

    @server.tool()
    def insists(a: float) -> float:
        """Ask for a name without a Context: by raising InputRequired itself."""
        raise InputRequired(ASK)

    @server.tool()
    def greet(ctx: Context) -> str:
        """Ask a name through the context."""
        return "Hello " + ctx.elicit("Name?", NAME, key="who")["content"]["name"]

    return server


@pytest.fixture(scope="module")
def wire() -> Iterator[Wire]:
    with serve(build()) as url:
        yield Wire(url + "mcp")


def call(wire: Wire, tool: str, arguments: dict[str, Any], **params: Any) -> Any:
    return wire.call("tools/call", {"name": tool, "arguments": arguments, **params})


def state_of_greet(wire: Wire) -> str:
    result = call(wire, "greet", {}).result
    assert result["resultType"] == "input_required"
    return str(result["requestState"])


def test_a_plain_call_answers_complete(wire: Wire) -> None:
    result = call(wire, "add", {"a": 1.5, "b": 2.25}).result
    assert result["resultType"] == "complete"
    assert result["content"][0]["text"] == "3.75"


def test_a_forged_request_state_is_refused(wire: Wire) -> None:
    reply = call(wire, "add", {"a": 1, "b": 2}, requestState="v1.e30.forged")
    assert reply.error["code"] == -32602
    assert "requestState" in reply.error["message"]


def test_another_calls_request_state_is_refused(wire: Wire) -> None:
    reply = call(wire, "add", {"a": 1, "b": 2}, requestState=state_of_greet(wire))
    assert reply.error["code"] == -32602
    assert "different request" in reply.error["message"]


def test_input_responses_that_are_no_object_are_refused(wire: Wire) -> None:
    assert call(wire, "add", {"a": 1, "b": 2}, inputResponses=["no"]).error["code"] == -32602


def test_a_tool_raising_input_required_itself_gets_a_state_its_retry_is_accepted_with(wire: Wire) -> None:
    first = call(wire, "insists", {"a": 1}).result
    assert first["resultType"] == "input_required"
    assert list(first["inputRequests"]) == ["who"]
    answer = {"who": {"action": "accept", "content": {"name": "Ada"}}}
    retry = call(wire, "insists", {"a": 1}, inputResponses=answer, requestState=first["requestState"]).result
    assert retry["resultType"] == "input_required"  # accepted (it asks again: it cannot read answers)
    assert retry["requestState"] != first["requestState"]
    replay = call(wire, "insists", {"a": 1}, inputResponses=answer, requestState=first["requestState"])
    assert replay.error["code"] == -32602  # used once
    moved = call(wire, "insists", {"a": 2}, requestState=retry["requestState"])
    assert moved.error["code"] == -32602  # bound to the arguments it was issued for


def test_a_tool_with_a_context_still_asks_and_reads_the_answer(wire: Wire) -> None:
    answer = {"who": {"action": "accept", "content": {"name": "Ada"}}}
    done = call(wire, "greet", {}, inputResponses=answer, requestState=state_of_greet(wire)).result
    assert done["resultType"] == "complete"
    assert done["content"][0]["text"] == "Hello Ada"
