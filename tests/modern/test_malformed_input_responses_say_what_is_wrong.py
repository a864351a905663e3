"""2026-07-28 over real HTTP: an answer in ``inputResponses`` that is not of its method's result shape
is refused with -32602 naming the key and what is wrong (the same text a handshake-era tool hears
as ``ClientRequestError``), whether it comes in a retried ``tools/call`` (multi round-trip) or in
``tasks/update``; a task then keeps waiting for a good answer. Trial20 F5.

Source: MCP 2026-07-28, Basic § Patterns § Multi Round-Trip Requests; schema ``ElicitResult``
(``content`` only with accept), ``ListRootsResult``; tasks extension § Task Update Requests.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from modern_wire import TASK_CAPS, Wire
from support import serve, wait_until

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(60)

NAME = {"type": "object", "properties": {"name": {"type": "string"}}}


def build() -> MCPServer:
    server = MCPServer("modern-answers")

    @server.tool()
    def greet(ctx: Context) -> str:
        """Ask for a name."""
        answer = ctx.elicit("Name?", NAME)
        return f"{answer['action']} {answer.get('content')}"

    @server.tool()
    def roots(ctx: Context) -> str:
        """Count the client's roots."""
        return str(len(ctx.list_roots()["roots"]))

    @server.async_tool()
    def confirm(ctx: Context) -> str:
        """A task that asks."""
        answer = ctx.elicit("Sure?", NAME, key="sure", timeout=30)
        return f"{answer['action']} {answer.get('content')}"

    return server


@pytest.fixture(scope="module")
def wire() -> Iterator[Wire]:
    with serve(build()) as base:
        yield Wire(base + "mcp", caps=TASK_CAPS)


def retried(wire: Wire, tool: str, answer: Any) -> Any:
    """Call ``tool``, then retry it with ``answer`` to its one input request."""
    first = wire.call("tools/call", {"name": tool, "arguments": {}}).result
    assert first["resultType"] == "input_required"
    [key] = first["inputRequests"]
    return wire.call("tools/call", {"name": tool, "arguments": {}, "inputResponses": {key: answer},
                                    "requestState": first["requestState"]})


def test_a_declined_answer_with_content_is_not_refused(wire: Wire) -> None:
    # Content with a refusal means nothing (the spec: "typically omitted"); some clients send it anyway.
    reply = retried(wire, "greet", {"action": "decline", "content": {"name": "Ada"}})
    assert reply.result["content"][0]["text"] == "decline {'name': 'Ada'}"
    assert retried(wire, "greet", {"action": "decline"}).result["content"][0]["text"] == "decline None"


def test_an_answer_without_an_action_or_a_root_outside_file_uris_is_refused(wire: Wire) -> None:
    assert retried(wire, "greet", {"foo": 1}).error["message"] == (
        'Invalid inputResponses["elicitation_1"]: the client\'s answer to elicitation/create has no "action" '
        "(accept, decline or cancel)")
    assert retried(wire, "roots", {"roots": [{"uri": "s3://bucket"}]}).error["message"] == (
        'Invalid inputResponses["roots_1"]: the client\'s answer to roots/list has roots[0].uri "s3://bucket": '
        "a root is a file:// URI")


def test_tasks_update_refuses_the_answer_and_the_task_keeps_waiting(wire: Wire) -> None:
    task_id = wire.call("tools/call", {"name": "confirm", "arguments": {}}).result["taskId"]
    deadline = time.monotonic() + 10
    while wire.call("tasks/get", {"taskId": task_id}).result["status"] != "input_required":
        assert time.monotonic() < deadline, "the task never asked"
        time.sleep(0.05)
    bad = wire.call("tasks/update", {"taskId": task_id, "inputResponses": {"sure": {"action": "yes"}}})
    assert bad.error["message"] == ('Invalid inputResponses["sure"]: the client\'s answer to elicitation/create '
                                    'has "action" "yes": it must be "accept", "decline" or "cancel"')
    assert wire.call("tasks/get", {"taskId": task_id}).result["status"] == "input_required"
    good = {"sure": {"action": "accept", "content": {"name": "Ada"}}}
    assert wire.call("tasks/update", {"taskId": task_id, "inputResponses": good}).status == 200
    while (task := wire.call("tasks/get", {"taskId": task_id}).result)["status"] != "completed":
        assert time.monotonic() < deadline + 10, task
        time.sleep(0.05)
    assert task["result"]["content"][0]["text"] == "accept {'name': 'Ada'}"


def test_tasks_update_refuses_content_off_the_requested_schema_and_the_task_keeps_waiting(wire: Wire) -> None:
    # Trial22 F8: the answer was acknowledged, then the task failed on it.
    task_id = wire.call("tools/call", {"name": "confirm", "arguments": {}}).result["taskId"]
    wait_until(lambda: wire.call("tasks/get", {"taskId": task_id}).result["status"] == "input_required",
               "the task to ask", 10)
    wrong = {"sure": {"action": "accept", "content": {"name": 5}}}
    bad = wire.call("tasks/update", {"taskId": task_id, "inputResponses": wrong})
    assert (bad.error["code"], bad.error["message"]) == (
        -32602, 'Invalid inputResponses["sure"]: the client\'s answer does not match the requested schema: '
        'content.name: 5 is not of type "string"')
    waiting = wire.call("tasks/get", {"taskId": task_id}).result
    assert (waiting["status"], list(waiting["inputRequests"])) == ("input_required", ["sure"])
    good = {"sure": {"action": "accept", "content": {"name": "Ada"}}}
    assert wire.call("tasks/update", {"taskId": task_id, "inputResponses": good}).status == 200
    task = wait_until(lambda: (t := wire.call("tasks/get", {"taskId": task_id}).result)["status"] == "completed"
                      and t, "the task to complete", 20)
    assert task["result"]["content"][0]["text"] == "accept {'name': 'Ada'}"
