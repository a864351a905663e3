"""``tasks/result`` of a task whose data is over ``max_inline_bytes`` answers as a direct MCP call of the tool
does — a note with a preview, then a ``resource_link`` to all of it — and links the very copy a
``get_job_result`` poll of the job links: kept once per job, owned by the job's owner. A REST poll still reads
the value. Two first polls of one job at the same moment keep one copy.

Before: ``tasks/result`` answered the job's record as it is, the whole data (212 KB for ~100 KB of numbers:
its text and its structured content) into the model's context; and two concurrent first polls each kept a copy
(two files, two URIs).

A real server with bearer tokens (the kept data is the job's principal's: any of its sessions reads it, no one
else), raw JSON-RPC over HTTP in the job's session for the task-augmented call, ``tasks/result`` and
``get_job_result`` (the official ``mcp`` client has no tasks API, and a job is its session's while both live), the
official client for ``resources/read``, REST over plain HTTP.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from typing import Any

import anyio
import pytest
from job_server import Routes
from support import done_job, mcp_client, serve, wait_until

from nanohubmcp import MCPServer, StaticTokenVerifier

LIMIT = 4096
DATA = {"y": list(range(18_000))}  # ~100 KB of JSON
TEXT = "x" * 30_000
VALUES: dict[str, Any] = {"big_dict": DATA, "big_text": TEXT}
HAS_NUMPY = importlib.util.find_spec("numpy") is not None
if HAS_NUMPY:
    VALUES["big_array"] = [float(n) for n in range(20_000)]
TOKENS = {"token-of-alice": "alice", "token-of-bob": "bob"}


def build() -> MCPServer:
    server = MCPServer("task-data", max_inline_bytes=LIMIT, job_store="memory", auth=StaticTokenVerifier(TOKENS))

    @server.async_tool()
    def big_dict() -> dict[str, Any]:
        """About 100 KB of data."""
        return DATA

    @server.async_tool()
    def big_text() -> str:
        """30,000 characters."""
        return TEXT

    if HAS_NUMPY:
        import numpy as np

        @server.async_tool()
        def big_array() -> Any:
            """20,000 numbers."""
            return np.arange(20_000.0)

    return server


def _routes(url: str, token: str = "token-of-alice") -> Routes:
    return Routes(int(url.rstrip("/").rsplit(":", 1)[1]), token)


def _task(routes: Routes, session: str, tool: str) -> str:
    created = routes.rpc(session, "tools/call", {"name": tool, "arguments": {}, "task": {"ttl": 60000}})
    return str(created["result"]["task"]["taskId"])


def _task_link(routes: Routes, session: str, task_id: str) -> str:
    """The URI ``tasks/result`` links; its answer is small and shaped as a direct call's."""
    result = routes.rpc(session, "tasks/result", {"taskId": task_id})["result"]
    assert [block["type"] for block in result["content"]] == ["text", "resource_link"], result
    assert "structuredContent" not in result
    assert len(json.dumps(result)) < 2000
    note, link = result["content"]
    assert f"larger than max_inline_bytes ({LIMIT})" in note["text"]
    assert link["uri"] in note["text"]
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    return str(link["uri"])


def _completed(routes: Routes, session: str, task_id: str) -> None:
    wait_until(
        lambda: routes.rpc(session, "tasks/get", {"taskId": task_id})["result"]["status"] == "completed",
        f"the task {task_id} to complete",
    )


def _poll(routes: Routes, session: str, job_id: str) -> Any:
    """What ``get_job_result`` answers in ``session`` (the job's own: a job is its session's while both live)."""
    return routes.rpc(session, "tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}})["result"]


def _rest_value(routes: Routes, job_id: str) -> Any:
    """The ``result`` a REST poll of ``job_id`` answers once it is done."""
    polled = wait_until(
        lambda: (answer := routes.rest_poll(job_id)[1])["status"] != "running" and answer, f"the job {job_id} to end"
    )
    assert polled["status"] == "done", polled
    return polled["result"]


async def _read(client: Any, uri: str, tool: str) -> Any:
    text = (await client.read_resource(uri)).contents[0].text
    return text if tool == "big_text" else json.loads(text)


@pytest.mark.anyio
async def test_tasks_result_and_get_job_result_link_one_copy_only_its_owner_reads() -> None:
    server = build()
    with serve(server) as url, anyio.fail_after(180):
        routes = _routes(url)
        session = await anyio.to_thread.run_sync(routes.session)
        async with (
            mcp_client(url + "mcp", token="token-of-alice") as alice,
            mcp_client(url + "mcp", token="token-of-bob") as bob,
        ):
            for tool, value in VALUES.items():
                task_id = await anyio.to_thread.run_sync(_task, routes, session, tool)
                uri = await anyio.to_thread.run_sync(_task_link, routes, session, task_id)
                assert await anyio.to_thread.run_sync(_task_link, routes, session, task_id) == uri, tool

                polled = await anyio.to_thread.run_sync(_poll, routes, session, task_id)
                assert polled["structuredContent"]["result"] == "<content[2]>", tool
                assert polled["content"][2]["uri"] == uri, tool  # the same copy, whichever method kept it
                assert await _read(alice, uri, tool) == value, tool  # the principal's, from any of its sessions
                with pytest.raises(Exception, match=r"(?i)not found|unknown|no resource"):
                    await bob.read_resource(uri)

                # a job started over REST (no session: the principal reads it by id on any route): REST polls
                # read the value, before and after the official client's poll linked it
                rest_id = (await anyio.to_thread.run_sync(routes.rest_start, tool, {}))[1]["job_id"]
                assert await anyio.to_thread.run_sync(_rest_value, routes, rest_id) == value, tool
                linked = await done_job(alice, rest_id)
                assert await _read(alice, str(linked.content[2].uri), tool) == value, tool
                assert await anyio.to_thread.run_sync(_rest_value, routes, rest_id) == value, tool
    assert len(server.core.result_store) == 2 * len(VALUES)  # one kept copy per job


@pytest.mark.anyio
async def test_a_poll_first_then_tasks_result_link_the_same_copy() -> None:
    server = build()
    with serve(server) as url, anyio.fail_after(120):
        routes = _routes(url)
        session = await anyio.to_thread.run_sync(routes.session)
        async with mcp_client(url + "mcp", token="token-of-alice") as alice:
            task_id = await anyio.to_thread.run_sync(_task, routes, session, "big_dict")
            await anyio.to_thread.run_sync(_completed, routes, session, task_id)
            uri = (await anyio.to_thread.run_sync(_poll, routes, session, task_id))["content"][2]["uri"]
            assert await anyio.to_thread.run_sync(_task_link, routes, session, task_id) == uri
            assert await _read(alice, uri, "big_dict") == DATA
    assert len(server.core.result_store) == 1


def test_two_first_polls_of_a_job_at_once_keep_one_copy() -> None:
    server = build()
    with serve(server) as url:
        routes = _routes(url)
        session = routes.session()
        task_id = _task(routes, session, "big_dict")
        _completed(routes, session, task_id)
        store, polled = server.core.result_store, server.core.job_service.polled_data
        keep, keeps, go = store.keep, [], threading.Event()

        def held_keep(*args: Any, **kwargs: Any) -> str:  # the real keep, once both polls are in
            keeps.append(args[2])
            assert go.wait(60), "the keep was never let go"
            return keep(*args, **kwargs)

        store.keep = held_keep  # type: ignore[method-assign]
        answers: list[Any] = []

        threads = [threading.Thread(target=lambda: answers.append(_poll(routes, session, task_id))) for _ in range(2)]
        threads[0].start()
        wait_until(lambda: keeps, "the first poll to keep the data")
        threads[1].start()
        # The second poll keeps a copy of its own, or waits for the first's keep.
        wait_until(lambda: len(keeps) > 1 or polled.pending(task_id) == 2, "the second poll to reach the keep")
        go.set()
        for thread in threads:
            thread.join(60)
        assert [answer["content"][-1]["type"] for answer in answers] == ["resource_link"] * 2
        assert answers[0]["content"][-1]["uri"] == answers[1]["content"][-1]["uri"]
        assert len(keeps) == 1
        assert polled.pending(task_id) == 0  # nothing held for the job once its polls answered


def test_data_larger_than_the_store_keeps_is_a_tool_error_naming_the_sizes() -> None:
    server = MCPServer("task-data", max_inline_bytes=LIMIT, job_store="memory", max_kept_bytes=50_000)
    server.async_tool(name="big_dict", description="About 100 KB of data.")(lambda: DATA)
    with serve(server) as url:
        routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        session = routes.session()
        task_id = _task(routes, session, "big_dict")
        result = routes.rpc(session, "tasks/result", {"taskId": task_id})["result"]
        assert result["isError"] is True
        assert "more than the server keeps for large results (50000)" in result["content"][0]["text"]
        assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
        polled = _poll(routes, session, task_id)  # the poll says the same
        assert polled["isError"] is True
        assert "(50000)" in polled["content"][0]["text"]


def test_only_a_tool_without_an_output_schema_is_linked_as_their_direct_calls_are() -> None:
    server = MCPServer("task-data", max_inline_bytes=LIMIT, job_store="memory")
    schema = {"type": "object", "properties": {"y": {"type": "array"}}, "required": ["y"]}
    server.async_tool(name="schematic", description="About 100 KB of data.", output_schema=schema)(lambda: DATA)
    server.async_tool(name="plain", description="About 100 KB of data.")(lambda: DATA)
    with serve(server) as url:
        routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        session = routes.session()
        result = routes.rpc(session, "tasks/result", {"taskId": _task(routes, session, "schematic")})["result"]
        assert result["structuredContent"] == DATA  # promised by the schema: never linked
        assert [block["type"] for block in result["content"]] == ["text"]
        _task_link(routes, session, _task(routes, session, "plain"))
