"""``@async_tool`` jobs and 2025-11-25 Tasks: one machinery, owned by the session that started it.

- A job answers at once with its id; ``get_job_result`` reads the result again and again until
  it expires, so a poll whose response was lost loses nothing.
- Another session cannot read it (``not_found``); a job started without a session is readable
  by whoever holds its unguessable id; REST answers 202 and is polled the same way.
- Tasks: ``tools/call`` with ``task`` answers ``CreateTaskResult``; ``tasks/get`` polls,
  ``tasks/result`` waits for the end, ``tasks/list`` lists only the caller's own tasks,
  ``tasks/cancel`` stops one (the tool sees ``is_cancelled()``); another session sees none of it.

Source: MCP 2025-11-25, Basic § Utilities § Tasks; seed API (``async_tool``, ``get_job_result``).
Issue 3, "Done when": a job result survives a lost poll response.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import anyio
import pytest
from stream_wire import Wire
from support import mcp_client, serve, wait_until

from nanohubmcp import Context, MCPServer

RELATED_TASK = "io.modelcontextprotocol/related-task"


class Gates:
    """Lets a test decide when jobs finish, and records what they saw."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.stopped: list[str] = []


def build(gates: Gates, **options: Any) -> MCPServer:
    server = MCPServer("jobs", **options)

    @server.async_tool()
    def crunch(n: int) -> dict:
        """Square n once released."""
        assert gates.release.wait(10), "never released"
        return {"n": n, "square": n * n}

    @server.async_tool()
    def until_cancelled(label: str, ctx: Context) -> str:
        """Run until cancelled (at most 10 s)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not ctx.is_cancelled():
            time.sleep(0.01)
        gates.stopped.append(label)
        return "stopped" if ctx.is_cancelled() else "timed out"

    @server.tool(task_support="optional")  # a tool takes tasks only when it says so (-32601 otherwise)
    def plain(text: str) -> str:
        """An ordinary tool, called as a task."""
        assert gates.release.wait(10), "never released"
        return text.upper()

    return server


def call(wire: Wire, session: str | None, name: str, arguments: dict[str, Any],
         **extra: Any) -> dict[str, Any]:
    reply = wire.request("tools/call", {"name": name, "arguments": arguments, **extra}, session)
    assert "result" in reply, reply
    return reply["result"]


def poll(wire: Wire, session: str | None, job_id: str) -> dict[str, Any]:
    return call(wire, session, "get_job_result", {"job_id": job_id})["structuredContent"]


def wait_done(wire: Wire, session: str | None, job_id: str, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = poll(wire, session, job_id)
        if status["status"] != "running":
            return status
        time.sleep(0.02)
    raise AssertionError(f"job {job_id} still running after {timeout} s")


# -- @async_tool + get_job_result ---------------------------------------------------------------
def test_a_job_result_can_be_read_again_after_a_lost_poll_response() -> None:
    gates = Gates()
    server = build(gates)
    polls: list[object] = []
    server.events.subscribe(lambda event, data: data["name"] == "get_job_result" and polls.append(data["call_id"]),
                            events={"call_finished"})  # fmt: skip
    with serve(server) as url:
        wire = Wire(url)
        session = wire.initialize()
        handle = call(wire, session, "crunch", {"n": 7})["structuredContent"]
        assert handle["status"] == "running"
        assert handle["job_id"] in handle["message"]
        job_id = handle["job_id"]
        assert poll(wire, session, job_id) == {"status": "running", "job_id": job_id}
        gates.release.set()
        first = wait_done(wire, session, job_id)
        assert first == {"status": "done", "job_id": job_id, "result": {"n": 7, "square": 49}}

        # A poll whose response never reaches the client: sent, answered by the server, then the
        # connection is dropped unread. (Dropped before the server reads it, the server may rightly
        # skip a call whose client is gone; that is not the case this test is about.)
        answered = len(polls)
        conn = wire.connect()
        message = {"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                   "params": {"name": "get_job_result", "arguments": {"job_id": job_id}}}
        conn.request("POST", wire.prefix + "/mcp", json.dumps(message).encode(), wire.headers(session))
        wait_until(lambda: len(polls) > answered, "the server answered the poll", 10)
        assert conn.sock is not None
        conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()

        assert poll(wire, session, job_id) == first
        assert poll(wire, session, job_id) == first


def test_another_session_cannot_read_a_job_but_a_sessionless_job_is_read_by_its_id() -> None:
    gates = Gates()
    gates.release.set()
    with serve(build(gates)) as url:
        wire = Wire(url)
        owner, stranger = wire.initialize(), wire.initialize()
        job_id = call(wire, owner, "crunch", {"n": 3})["structuredContent"]["job_id"]
        assert wait_done(wire, owner, job_id)["result"] == {"n": 3, "square": 9}
        for other in (stranger, None):
            answer = poll(wire, other, job_id)
            assert answer["status"] == "not_found", answer
            assert "result" not in answer
        assert poll(wire, owner, "made-up-id")["status"] == "not_found"

        # Started without a session: the id is the capability.
        loose = call(wire, None, "crunch", {"n": 4})["structuredContent"]["job_id"]
        assert wait_done(wire, None, loose)["result"] == {"n": 4, "square": 16}
        assert wait_done(wire, stranger, loose)["result"] == {"n": 4, "square": 16}


def test_rest_answers_202_and_is_polled_until_done() -> None:
    gates = Gates()
    with serve(build(gates), path_prefix="/weber/7/x/1") as url:
        wire = Wire(url)
        headers = {"Content-Type": "application/json"}
        started = wire.send("POST", "/tools/crunch", {"n": 5}, headers)
        assert started.status == 202
        job_id = started.json["job_id"]
        assert started.json["status"] == "running"
        assert "/weber/7/x/1/tools/get_job_result" in started.json["message"]
        polled = wire.send("POST", "/tools/get_job_result", {"job_id": job_id}, headers)
        assert polled.status == 200
        assert polled.json == {"status": "running", "job_id": job_id}
        gates.release.set()
        deadline = time.monotonic() + 10
        while polled.json["status"] == "running" and time.monotonic() < deadline:
            time.sleep(0.02)
            polled = wire.send("POST", "/tools/get_job_result", {"job_id": job_id}, headers)
        assert polled.json == {"status": "done", "job_id": job_id, "result": {"n": 5, "square": 25}}
        again = wire.send("POST", "/tools/get_job_result", {"job_id": job_id}, headers)
        assert again.json == polled.json


def test_a_finished_job_expires_after_its_ttl() -> None:
    gates = Gates()
    gates.release.set()
    with serve(build(gates, job_ttl_seconds=0.3)) as url:
        wire = Wire(url)
        session = wire.initialize()
        job_id = call(wire, session, "crunch", {"n": 2})["structuredContent"]["job_id"]
        assert wait_done(wire, session, job_id)["status"] == "done"
        wait_until(lambda: poll(wire, session, job_id)["status"] == "not_found", "the job past its TTL was dropped", 10)


@pytest.mark.anyio
@pytest.mark.parametrize(("transport", "endpoint"), [("http", "mcp"), ("sse", "sse")])
async def test_the_official_client_starts_and_polls_a_job(transport: str, endpoint: str) -> None:
    gates = Gates()
    with serve(build(gates)) as url, anyio.fail_after(30):
        async with mcp_client(url + endpoint, transport=transport) as client, \
                mcp_client(url + endpoint, transport=transport) as other:
            handle = await client.call_tool("crunch", {"n": 12})
            job_id = handle.structured_content["job_id"]
            stolen = await other.call_tool("get_job_result", {"job_id": job_id})
            assert stolen.structured_content["status"] == "not_found"
            gates.release.set()
            for _ in range(500):
                polled = await client.call_tool("get_job_result", {"job_id": job_id})
                if polled.structured_content["status"] != "running":
                    break
                await anyio.sleep(0.02)
            assert polled.structured_content == {"status": "done", "job_id": job_id,
                                                 "result": {"n": 12, "square": 144}}
            assert (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content \
                == polled.structured_content


# -- Tasks (2025-11-25) ----------------------------------------------------------------------
def test_a_task_is_created_polled_and_its_result_waited_for() -> None:
    gates = Gates()
    with serve(build(gates)) as url:
        wire = Wire(url)
        session = wire.initialize(capabilities={"tasks": {}})
        created = call(wire, session, "plain", {"text": "shout"}, task={"ttl": 60000})
        task = created["task"]
        assert task["status"] == "working"
        assert task["ttl"] == 60000
        assert {"taskId", "createdAt", "lastUpdatedAt", "pollInterval"} <= set(task)
        got = wire.request("tasks/get", {"taskId": task["taskId"]}, session)["result"]
        assert got["taskId"] == task["taskId"]
        assert got["status"] == "working"

        # tasks/result blocks until the task ends.
        rid, waiting = wire.stream_call("tasks/result", {"taskId": task["taskId"]}, session)
        try:
            assert waiting.quiet_for(0.4) == []
            gates.release.set()
            _, final = waiting.until(lambda m: m.get("id") == rid)
        finally:
            waiting.close()
        assert final["result"]["content"] == [{"type": "text", "text": "SHOUT"}]
        assert final["result"]["_meta"][RELATED_TASK] == {"taskId": task["taskId"]}
        status = wire.request("tasks/get", {"taskId": task["taskId"]}, session)["result"]["status"]
        assert status == "completed"
        # Read again: the same result.
        again = wire.request("tasks/result", {"taskId": task["taskId"]}, session)["result"]
        assert again == final["result"]


def test_tasks_of_one_session_are_invisible_to_another() -> None:
    gates = Gates()
    with serve(build(gates)) as url:
        wire = Wire(url)
        session_a, session_b = wire.initialize(), wire.initialize()
        task_a = call(wire, session_a, "until_cancelled", {"label": "a"}, task={})["task"]["taskId"]
        task_b = call(wire, session_b, "until_cancelled", {"label": "b"}, task={})["task"]["taskId"]

        listed_a = [t["taskId"] for t in wire.request("tasks/list", {}, session_a)["result"]["tasks"]]
        listed_b = [t["taskId"] for t in wire.request("tasks/list", {}, session_b)["result"]["tasks"]]
        assert listed_a == [task_a]
        assert listed_b == [task_b]

        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            reply = wire.request(method, {"taskId": task_a}, session_b)
            assert reply["error"]["code"] == -32602, (method, reply)
            assert task_a in reply["error"]["message"]
        assert wire.request("tasks/get", {"taskId": task_a}, None)["error"]["code"] == -32602
        assert wire.request("tasks/get", {"taskId": task_a}, session_a)["result"]["status"] == "working"
        assert gates.stopped == []  # B's cancel did not reach A's task

        cancelled = wire.request("tasks/cancel", {"taskId": task_a}, session_a)["result"]
        assert cancelled["status"] == "cancelled"
        deadline = time.monotonic() + 5
        while "a" not in gates.stopped and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gates.stopped == ["a"]  # the tool saw is_cancelled() and stopped
        result = wire.request("tasks/result", {"taskId": task_a}, session_a)["result"]
        assert result["isError"] is True
        assert result["_meta"][RELATED_TASK] == {"taskId": task_a}
        again = wire.request("tasks/cancel", {"taskId": task_a}, session_a)
        assert again["error"]["code"] == -32602
        assert "already ended" in again["error"]["message"]
        assert wire.request("tasks/get", {"taskId": task_b}, session_b)["result"]["status"] == "working"
        wire.request("tasks/cancel", {"taskId": task_b}, session_b)


def test_tasks_list_lists_this_sessions_tasks_and_an_ended_sessions_are_read_by_id() -> None:
    """trial13 F6: jobs.md said "the caller's own tasks"; a task of the same principal's ended session is
    read by its id (as documented for jobs), not listed: without authorization every caller is the same
    principal, so listing them would show every client's earlier tasks."""
    gates = Gates()
    gates.release.set()
    with serve(build(gates)) as url:
        wire = Wire(url)
        first = wire.initialize()
        task = call(wire, first, "plain", {"text": "hi"}, task={})["task"]["taskId"]
        assert wire.request("tasks/result", {"taskId": task}, first)["result"]["content"][0]["text"] == "HI"
        assert [t["taskId"] for t in wire.request("tasks/list", {}, first)["result"]["tasks"]] == [task]
        assert wire.delete(first).status == 204
        second = wire.initialize()
        assert wire.request("tasks/list", {}, second)["result"]["tasks"] == []
        assert wire.request("tasks/get", {"taskId": task}, second)["result"]["status"] == "completed"


def test_the_job_handle_and_the_task_see_the_same_job() -> None:
    gates = Gates()
    gates.release.set()
    with serve(build(gates)) as url:
        wire = Wire(url)
        session = wire.initialize()
        task_id = call(wire, session, "crunch", {"n": 9}, task={})["task"]["taskId"]
        result = wire.request("tasks/result", {"taskId": task_id}, session)["result"]
        assert result["structuredContent"] == {"n": 9, "square": 81}
        assert poll(wire, session, task_id) == {"status": "done", "job_id": task_id,
                                                "result": {"n": 9, "square": 81}}
