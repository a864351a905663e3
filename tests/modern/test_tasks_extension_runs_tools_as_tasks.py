"""The ``io.modelcontextprotocol/tasks`` extension on the ``@async_tool`` job machinery: task handles,
``tasks/get`` with input requests, results or errors, ``tasks/update``, ``tasks/cancel``, gating on
the extension, ``task_support="required"``, and a call that gathers input and then goes on as a task."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp_types.methods import validate_server_result
from modern_wire import ALL_CAPS, TASK_CAPS, TASKS, VERSION, Wire
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer, ToolError
from nanohubmcp.errors import InternalError, RegistrationError

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ASKED = {"confirm": 0}


def build() -> MCPServer:
    server = MCPServer("tasks")

    @server.tool()
    def quick(x: int) -> int:
        """Never a task."""
        return x * 2

    @server.async_tool()
    def slow(ctx: Context, seconds: float = 0.3) -> str:
        """Work a while (stops early when cancelled)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if ctx.is_cancelled():
                return "stopped"
            time.sleep(0.02)
        return f"slept {seconds}"

    @server.async_tool(task_support="required")
    def must_be_task() -> str:
        """Refuses clients without the extension."""
        return "ok"

    @server.async_tool()
    async def tool_error() -> str:
        """Fails as a tool."""
        raise ToolError("bad input for this job")

    @server.async_tool()
    async def protocol_error() -> str:
        """Fails with a JSON-RPC error."""
        raise InternalError("the backend is down")

    @server.async_tool()
    def confirm(ctx: Context, what: str) -> str:
        """Ask before acting."""
        ASKED["confirm"] += 1
        answer = ctx.elicit(f"Really {what}?", {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                            key="confirm", timeout=30)
        return f"{what}: {answer['content']['ok']}"

    @server.async_tool()
    def two_names(ctx: Context) -> str:
        """Two questions outstanding at once."""
        def question(text: str) -> dict[str, Any]:
            return {"method": "elicitation/create", "params": {"message": text, "requestedSchema": NAME}}

        answers = ctx.ask({"a": question("A?"), "b": question("B?")}, timeout=30)
        return "+".join(answers[k]["content"]["name"] for k in ("a", "b"))

    @server.tool(task_support="optional")
    def gather_then_work(ctx: Context) -> str:
        """Multi round-trip first, then a task."""
        name = ctx.elicit("Name?", NAME, key="user_name")["content"]["name"]
        became = ctx.start_task("working on it")
        time.sleep(0.2)
        return f"{name} (task={became})"

    return server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(build()) as base:
        yield base + "mcp"


@pytest.fixture
def tasks(url: str) -> Wire:
    return Wire(url, caps=TASK_CAPS)


def call(wire: Wire, tool: str, **arguments: Any) -> dict[str, Any]:
    return wire.call("tools/call", {"name": tool, "arguments": arguments}).result


def get(wire: Wire, task_id: str) -> dict[str, Any]:
    return wire.call("tasks/get", {"taskId": task_id}).result


def wait_for(wire: Wire, task_id: str, *statuses: str, timeout: float = 10) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = get(wire, task_id)
        if task["status"] in statuses:
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} never reached {statuses}: {task}")


def test_an_async_tool_becomes_a_task_for_a_client_with_the_extension(tasks: Wire) -> None:
    created = call(tasks, "slow", seconds=1.0)  # long enough to be still working at the next request
    assert created["resultType"] == "task"
    assert set(created) >= {"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"}
    assert created["status"] == "working"
    assert "ttl" not in created
    assert "pollInterval" not in created
    assert get(tasks, created["taskId"])["status"] == "working"  # durable at once
    done = wait_for(tasks, created["taskId"], "completed")
    assert done["result"]["content"] == [{"type": "text", "text": "slept 1.0"}]
    assert done["resultType"] == "complete"
    assert "requestState" not in done
    assert "error" not in done


def test_without_the_extension_an_async_tool_answers_with_its_job_handle(url: str) -> None:
    result = Wire(url, caps=ALL_CAPS).call("tools/call", {"name": "slow", "arguments": {"seconds": 0}}).result
    validate_server_result("tools/call", VERSION, result)
    assert result["resultType"] == "complete"
    assert result["structuredContent"]["status"] == "running"
    assert "taskId" not in result


def test_plain_tools_never_become_tasks_and_the_legacy_task_param_is_ignored(tasks: Wire) -> None:
    result = tasks.call("tools/call", {"name": "quick", "arguments": {"x": 4}, "task": {"ttl": 1000}}).result
    assert (result["resultType"], result["content"][0]["text"]) == ("complete", "8")


def test_required_task_support_refuses_clients_without_the_extension(url: str, tasks: Wire) -> None:
    reply = Wire(url, caps=ALL_CAPS).call("tools/call", {"name": "must_be_task"})
    assert (reply.status, reply.error["code"]) == (400, -32021)
    assert reply.error["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    assert call(tasks, "must_be_task")["resultType"] == "task"


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
def test_task_methods_need_the_extension(url: str, method: str) -> None:
    reply = Wire(url, caps=ALL_CAPS).call(method, {"taskId": "whatever", "inputResponses": {}})
    assert (reply.status, reply.error["code"]) == (400, -32021)


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
def test_unknown_tasks_are_invalid_params(tasks: Wire, method: str) -> None:
    assert tasks.call(method, {"taskId": "no-such-task", "inputResponses": {}}).error["code"] == -32602


def test_a_tool_error_is_a_completed_task_and_a_protocol_error_a_failed_one(tasks: Wire) -> None:
    tool_failure = wait_for(tasks, call(tasks, "tool_error")["taskId"], "completed", "failed")
    assert tool_failure["status"] == "completed"
    assert tool_failure["result"]["isError"] is True
    protocol_failure = wait_for(tasks, call(tasks, "protocol_error")["taskId"], "completed", "failed")
    assert protocol_failure["status"] == "failed"
    assert protocol_failure["error"] == {"code": -32603, "message": "the backend is down"}
    assert "result" not in protocol_failure


def test_cancel_acknowledges_stops_the_work_and_is_idempotent(tasks: Wire) -> None:
    task_id = call(tasks, "slow", seconds=30)["taskId"]
    assert tasks.call("tasks/cancel", {"taskId": task_id}).result.keys() == {"resultType", "_meta"}
    assert get(tasks, task_id)["status"] == "cancelled"
    again = tasks.call("tasks/cancel", {"taskId": task_id}).result
    assert again["resultType"] == "complete"
    assert "status" not in again


def test_an_input_request_parks_the_task_until_tasks_update(tasks: Wire) -> None:
    task_id = call(tasks, "confirm", what="delete")["taskId"]
    parked = wait_for(tasks, task_id, "input_required")
    assert list(parked["inputRequests"]) == ["confirm"]
    assert parked["inputRequests"]["confirm"]["method"] == "elicitation/create"
    ack = tasks.call("tasks/update", {"taskId": task_id, "inputResponses": {
        "confirm": {"action": "accept", "content": {"ok": True}}, "stray": {"x": 1}}}).result
    assert set(ack) == {"resultType", "_meta"}
    assert wait_for(tasks, task_id, "completed")["result"]["content"][0]["text"] == "delete: True"


def test_answers_may_come_one_key_at_a_time(tasks: Wire) -> None:
    task_id = call(tasks, "two_names")["taskId"]
    parked = wait_for(tasks, task_id, "input_required")
    assert sorted(parked["inputRequests"]) == ["a", "b"]
    tasks.call("tasks/update", {"taskId": task_id, "inputResponses": {
        "a": {"action": "accept", "content": {"name": "Ada"}}}})
    halfway = get(tasks, task_id)
    assert halfway["status"] == "input_required"
    assert list(halfway["inputRequests"]) == ["b"]
    tasks.call("tasks/update", {"taskId": task_id, "inputResponses": {
        "b": {"action": "accept", "content": {"name": "Bo"}}}})
    assert wait_for(tasks, task_id, "completed")["result"]["content"][0]["text"] == "Ada+Bo"


def test_a_malformed_answer_to_an_outstanding_request_is_invalid_params(tasks: Wire) -> None:
    task_id = call(tasks, "confirm", what="move")["taskId"]
    wait_for(tasks, task_id, "input_required")
    bad = tasks.call("tasks/update", {"taskId": task_id, "inputResponses": {"confirm": 7}})
    assert bad.error["code"] == -32602
    assert get(tasks, task_id)["status"] == "input_required"
    assert tasks.call("tasks/cancel", {"taskId": task_id}).status == 200
    assert wait_for(tasks, task_id, "cancelled")["status"] == "cancelled"


def test_a_call_gathers_input_by_round_trip_then_goes_on_as_a_task(tasks: Wire) -> None:
    first = call(tasks, "gather_then_work")
    assert first["resultType"] == "input_required"
    assert "taskId" not in first
    answer = {"user_name": {"action": "accept", "content": {"name": "Ada"}}}
    second = tasks.call("tools/call", {"name": "gather_then_work", "arguments": {}, "inputResponses": answer,
                                       "requestState": first["requestState"]}).result
    assert second["resultType"] == "task"
    assert second["statusMessage"] == "working on it"
    assert "requestState" not in second
    assert "inputRequests" not in second
    done = wait_for(tasks, second["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "Ada (task=True)"


def test_without_the_extension_start_task_does_nothing(url: str) -> None:
    wire = Wire(url, caps=ALL_CAPS)
    answer = {"user_name": {"action": "accept", "content": {"name": "Bo"}}}
    result = wire.call("tools/call", {"name": "gather_then_work", "arguments": {}, "inputResponses": answer})
    assert result.result["content"][0]["text"] == "Bo (task=False)"


@pytest.mark.anyio
async def test_session_jobs_stay_invisible_to_stateless_callers_while_the_session_lives(url: str, tasks: Wire) -> None:
    async with mcp_client(url) as session:
        handle = await session.call_tool("slow", {"seconds": 0})
        job_id = handle.structured_content["job_id"]
        refused = await anyio.to_thread.run_sync(lambda: tasks.call("tasks/get", {"taskId": job_id}))
        assert refused.error["code"] == -32602
    # The client's DELETE ended the session: its job is read by its id from now on, as after a stop
    # (docs/how-to/jobs.md; trial11 F13 found it unreadable by everyone until a restart).
    assert tasks.call("tasks/get", {"taskId": job_id}).result["taskId"] == job_id


def test_task_support_is_checked_at_registration() -> None:
    server = MCPServer("bad")
    with pytest.raises(RegistrationError, match="task_support"):
        server.add_tool(lambda: 1, name="x", description="x", task_support="always")


def test_task_metadata_set_by_the_tool_travels_with_the_task() -> None:
    server = MCPServer("metadata")

    @server.async_tool()
    def labelled(ctx: Context) -> str:
        """Publishes metadata about its work."""
        ctx.set_task_metadata(stage="fitting")
        return "fitted"

    with serve(server) as base:
        wire = Wire(base + "mcp", caps=TASK_CAPS)
        task_id = call(wire, "labelled")["taskId"]
        done = wait_for(wire, task_id, "completed")
    assert done["_meta"]["org.nanohub/stage"] == "fitting"
    assert "io.modelcontextprotocol/serverInfo" in done["_meta"]
