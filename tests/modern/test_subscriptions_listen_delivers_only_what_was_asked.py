"""``subscriptions/listen``: acknowledged first, then only the notifications the filter names, each
tagged with the subscription id; closing the stream ends the subscription."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from modern_wire import TASK_CAPS, TASKS, Stream, Wire
from support import serve

from nanohubmcp import MCPServer

SUB = "io.modelcontextprotocol/subscriptionId"


def build() -> MCPServer:
    server = MCPServer("listening")

    @server.tool()
    def base() -> str:
        """A tool."""
        return "base"

    @server.prompt()
    def hello() -> str:
        """A prompt."""
        return "hello"

    @server.resource("file:///project/config.json")
    def config() -> dict[str, Any]:
        """A config."""
        return {"a": 1}

    @server.async_tool()
    def job(seconds: float = 0.2) -> str:
        """A short job."""
        time.sleep(seconds)
        return "job done"

    return server


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[MCPServer, Wire]]:
    server = build()
    with serve(server) as url:
        yield server, Wire(url + "mcp")


def open_stream(wire: Wire, request_id: Any, **filters: Any) -> tuple[Stream, dict[str, Any]]:
    stream = wire.listen("subscriptions/listen", {"notifications": filters}, request_id=request_id)
    assert stream.status == 200
    assert stream.headers.get("Content-Type", "").startswith("text/event-stream")
    ack = stream.next(timeout=5)
    assert ack is not None
    return stream, ack


def drain(stream: Stream, expect: int = 0, seconds: float = 0.4) -> list[dict[str, Any]]:
    """The first ``expect`` messages (each waited for up to 10 s, so a slow arrival on a loaded
    machine is not missed), then whatever else arrives within ``seconds``."""
    out = []
    while len(out) < expect:
        message = stream.next(timeout=10)
        if message is None:
            return out  # ended, or silent for 10 s (a timed-out stream cannot be read again)
        out.append(message)
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        message = stream.next(timeout=left)
        if message is None:
            break
        out.append(message)
    return out


def test_the_acknowledgement_comes_first_with_the_honoured_filter(served: tuple[MCPServer, Wire]) -> None:
    _, wire = served
    stream, ack = open_stream(wire, "s-1", toolsListChanged=True, resourceSubscriptions=["file:///a"],
                              promptsListChanged=False)
    with stream:
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"] == {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]},
                                 "_meta": {SUB: "s-1"}}


def test_each_stream_gets_only_its_own_kinds(served: tuple[MCPServer, Wire]) -> None:
    server, wire = served
    tools, _ = open_stream(wire, 11, toolsListChanged=True)
    prompts, _ = open_stream(wire, 12, promptsListChanged=True)
    files, _ = open_stream(wire, 13, resourceSubscriptions=["file:///project"])
    with tools, prompts, files:
        server.add_tool(lambda: "new", name="added_tool", description="Added while listening.")
        server.add_prompt(lambda: "p", name="added_prompt", description="Added while listening.")
        server.resource_updated("file:///project/config.json")
        server.resource_updated("file:///elsewhere")
        got_tools, got_prompts, got_files = drain(tools, 1), drain(prompts, 1), drain(files, 1)
    assert got_tools == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                          "params": {"_meta": {SUB: 11}}}]
    assert got_prompts == [{"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
                            "params": {"_meta": {SUB: 12}}}]
    assert got_files == [{"jsonrpc": "2.0", "method": "notifications/resources/updated",
                          "params": {"uri": "file:///project/config.json", "_meta": {SUB: 13}}}]


def test_closing_the_stream_ends_the_subscription(served: tuple[MCPServer, Wire]) -> None:
    server, wire = served
    notifier = server.core.notifier
    # Earlier tests' streams may still be closing: follow this stream's own listener only. Hold the
    # earlier listeners themselves, not their ids: one freed meanwhile could hand its id to the new one.
    before = list(notifier.listeners)
    stream, _ = open_stream(wire, 21, toolsListChanged=True)
    mine = [listener for listener in notifier.listeners if all(listener is not old for old in before)]
    assert len(mine) == 1
    stream.close()
    deadline = time.monotonic() + 5
    while mine[0] in notifier.listeners and time.monotonic() < deadline:
        time.sleep(0.02)
    assert mine[0] not in notifier.listeners


def test_task_status_needs_the_tasks_extension(served: tuple[MCPServer, Wire]) -> None:
    _, wire = served
    reply = wire.call("subscriptions/listen", {"notifications": {"taskIds": ["x"]}})
    assert reply.status == 400
    assert reply.error["code"] == -32021
    assert reply.error["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}


def test_task_status_notifications_follow_a_task_to_its_end(served: tuple[MCPServer, Wire]) -> None:
    _, wire = served
    tasks = Wire(wire_url(wire), caps=TASK_CAPS)
    # Long enough to be still running when the listen request arrives (a task that already ended
    # gets no status notification: the client reads it with tasks/get).
    task = tasks.call("tools/call", {"name": "job", "arguments": {"seconds": 2.0}}).result
    assert task["resultType"] == "task"
    stream = tasks.listen("subscriptions/listen", {"notifications": {"taskIds": [task["taskId"], "unknown"]}},
                          request_id=31)
    with stream:
        ack = stream.next(timeout=5)
        assert ack["params"]["notifications"] == {"taskIds": [task["taskId"]]}
        done = stream.next(timeout=10)
    assert done is not None, "no status notification for the task"
    assert done["method"] == "notifications/tasks"
    assert done["params"]["taskId"] == task["taskId"]
    assert done["params"]["status"] == "completed"
    assert done["params"]["result"]["content"][0]["text"] == "job done"
    assert done["params"]["_meta"] == {SUB: 31}


def wire_url(wire: Wire) -> str:
    return f"http://{wire.host}:{wire.port}{wire.path}"


def test_a_listen_request_without_sse_is_refused(served: tuple[MCPServer, Wire]) -> None:
    _, wire = served
    reply = wire.call("subscriptions/listen", {"notifications": {"toolsListChanged": True}},
                      accept="application/json")
    assert reply.status == 400
    assert reply.error["code"] == -32600


@pytest.mark.parametrize("filters", [None, {"toolsListChanged": "yes"}, {"resourceSubscriptions": "file:///a"}])
def test_a_malformed_filter_is_invalid_params(served: tuple[MCPServer, Wire], filters: Any) -> None:
    _, wire = served
    params = {} if filters is None else {"notifications": filters}
    assert wire.call("subscriptions/listen", params).error["code"] == -32602


def test_a_graceful_server_stop_ends_each_stream_with_its_result() -> None:
    """The listen request's result is sent only when the server closes the stream gracefully
    (MCP 2026-07-28, Basic § Patterns § Subscriptions): stopping the server must send it, tagged
    with the subscription id, and then end the stream."""
    server = build()
    with serve(server) as url:
        wire = Wire(url + "mcp")
        stream, _ = open_stream(wire, "sub-9", toolsListChanged=True)
        server.stop()
        last = stream.next(timeout=10)
        assert last is not None, "the stream ended without the subscription's result"
        assert last["id"] == "sub-9"
        assert last["result"]["resultType"] == "complete"
        assert last["result"]["_meta"][SUB] == "sub-9"
        assert stream.next(timeout=5) is None
        stream.close()
