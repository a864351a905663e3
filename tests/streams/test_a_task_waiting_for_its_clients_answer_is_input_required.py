"""A 2025-11-25 task whose function asks its client (``ctx.elicit``) is ``input_required`` until the
answer comes, then ``working`` again: ``tasks/get`` says so. The task-augmented ``tools/call`` was
answered at once as JSON, so the question travels on the session's GET stream. One real Tornado
server, raw HTTP.

MCP 2025-11-25, Basic § Utilities § Tasks, Task Status: ``input_required``, the receiver needs input
from the requestor. Found by a fresh-user trial (trial 22, F7): a task asking its client stayed
``working``.
"""

from __future__ import annotations

import threading

import pytest
from stream_wire import Wire
from support import serve, wait_until

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(60)
OK = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


def build(release: threading.Event) -> MCPServer:
    server = MCPServer("task-questions")

    @server.async_tool()
    def go_on(ctx: Context) -> str:
        """Ask whether to go on, then wait for the test."""
        answer = ctx.elicit("Go on?", OK, timeout=30)
        release.wait(30)
        return f"go on: {answer['content']['ok']}"

    return server


def test_a_task_is_input_required_while_its_question_waits_and_working_once_answered() -> None:
    release = threading.Event()
    try:
        with serve(build(release)) as url:
            wire = Wire(url)
            session = wire.initialize(capabilities={"elicitation": {}})
            stream = wire.listen(session)
            try:
                created = wire.request("tools/call", {"name": "go_on", "arguments": {}, "task": {"ttl": 60000}},
                                       session, accept="application/json")
                task_id = created["result"]["task"]["taskId"]

                def status() -> str:
                    return str(wire.request("tasks/get", {"taskId": task_id}, session)["result"]["status"])

                question = stream.next_message()
                assert question is not None
                assert question["method"] == "elicitation/create", question
                assert status() == "input_required"
                answer = {"action": "accept", "content": {"ok": True}}
                assert wire.respond(question["id"], answer, session).status == 202
                wait_until(lambda: status() == "working", "the task working again once answered", 20)
                release.set()
                ended = wire.request("tasks/result", {"taskId": task_id}, session)["result"]
                assert ended["content"][0]["text"] == "go on: True", ended
                assert status() == "completed"
            finally:
                stream.close()
    finally:
        release.set()

