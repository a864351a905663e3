"""Issue 28's leftover: a ``*/list`` answered as a JSON body (Streamable HTTP, nothing sent before it) had no bound
unless ``MCPServer(list_page_size=N)`` was set: a principal's 1,000 failed tasks, each status message cut at 65,536
characters, made one ~65 MB ``tasks/list`` answer; 300 tools of 5 kB one 1.5 MB ``tools/list``. Now every list page
is at most the server's ``max_event_bytes`` (1 MiB) of JSON whatever the transport, ``tasks/list`` pages at most 100
tasks by default, and ``nextCursor`` leads to the rest. Real server, the official ``mcp`` client over Streamable HTTP
(it does not follow ``nextCursor`` itself: the caller passes it back, as here), each answer's bytes read off the wire
by an ``httpx`` hook."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import mcp.types as t
import pytest
from support import serve, wait_until
from test_every_list_answer_fits_one_event import LISTS, every_page, registry_server

from nanohubmcp import MCPServer
from nanohubmcp.errors import ToolError

pytestmark = pytest.mark.timeout(300)

BOUND = 1 << 20
TASKS = 1000


@contextlib.asynccontextmanager
async def measured_client(url: str, sizes: dict[str, list[int]]) -> AsyncIterator[Any]:
    """The official client over Streamable HTTP; ``sizes[method]`` gets the bytes of each JSON answer to it."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def record(response: httpx.Response) -> None:
        if response.request.method == "POST" and response.headers.get("content-type", "").startswith(
                "application/json"):
            await response.aread()
            sent = json.loads(response.request.content)
            if isinstance(sent, dict) and "method" in sent:
                sizes.setdefault(sent["method"], []).append(len(response.content))

    async with httpx.AsyncClient(event_hooks={"response": [record]}, timeout=60) as http, \
            streamable_http_client(url, http_client=http) as streams, \
            ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield session


def failing_server(**options: Any) -> MCPServer:
    server = MCPServer("tl", provenance=False, job_store="memory", **options)

    @server.async_tool()
    def fails(i: int) -> str:
        """Fails with a long explanation."""
        raise ToolError(f"run {i} failed: " + "x" * 70_000)

    @server.async_tool()
    def works(i: int) -> int:
        """Answers at once."""
        return i

    return server


async def start_tasks(session: Any, tool: str, count: int) -> list[str]:
    send = session._dispatcher.send_raw_request  # (its typed call_tool reads a CallToolResult, never a task)
    return [str((await send("tools/call", {"name": tool, "arguments": {"i": i}, "task": {"ttl": 600_000}}))
                ["task"]["taskId"]) for i in range(count)]


async def every_task(session: Any) -> tuple[list[t.Task], list[int]]:
    """Every task of the session, following ``nextCursor``, and how many each page held."""
    listed: list[t.Task] = []
    cursor, counts = None, []
    while True:
        page = await session.send_request(t.ListTasksRequest(
            params=t.PaginatedRequestParams(cursor=cursor) if cursor else None), t.ListTasksResult)
        counts.append(len(page.tasks))
        listed += page.tasks
        cursor = page.next_cursor
        if cursor is None:
            return listed, counts


def test_a_thousand_failed_tasks_come_in_bounded_json_pages_and_each_is_reached() -> None:
    server, sizes = failing_server(), {}

    async def main(url: str) -> tuple[list[str], list[t.Task], list[int]]:
        with anyio.fail_after(240):
            async with measured_client(url + "mcp", sizes) as session:
                started = await start_tasks(session, "fails", TASKS)
                wait_until(lambda: all(j["status"] == "failed" for j in server.core.job_service.jobs.listing(TASKS)),
                           "every task failed", 120)
                listed, counts = await every_task(session)
                return started, listed, counts

    with serve(server) as url:
        started, listed, counts = anyio.run(main, url)
    assert [task.task_id for task in listed] == started  # every task, once, oldest first
    assert {task.status for task in listed} == {"failed"}
    assert all(len(task.status_message or "") > 65_536 for task in listed)
    answers = sizes["tasks/list"]
    assert len(answers) == len(counts) >= TASKS * 65_536 // BOUND, answers
    assert max(answers) <= BOUND, max(answers)


def test_small_tasks_come_a_hundred_a_page_and_list_page_size_still_sets_it() -> None:
    async def main(url: str) -> tuple[list[str], list[t.Task], list[int]]:
        with anyio.fail_after(120):
            async with measured_client(url + "mcp", {}) as session:
                started = await start_tasks(session, "works", 250)
                return (started, *await every_task(session))

    for page_size, expected in ((None, [100, 100, 50]), (120, [120, 120, 10])):
        with serve(failing_server(list_page_size=page_size)) as url:
            started, listed, counts = anyio.run(main, url)
        assert [task.task_id for task in listed] == started
        assert counts == expected


def test_a_registry_list_as_json_comes_in_bounded_pages_the_official_client_follows() -> None:
    async def main(url: str, method: str) -> tuple[list[str], int, list[int]]:
        sizes: dict[str, list[int]] = {}
        with anyio.fail_after(60):
            async with measured_client(url + "mcp", sizes) as session:
                names, pages = await every_page(session, method)
                return names, pages, sizes[method]

    with serve(registry_server()) as url:
        for method in LISTS:
            names, pages, answers = anyio.run(main, url, method)
            assert names == LISTS[method][3], method
            assert pages == len(answers) >= 2, (method, answers)
            assert max(answers) <= BOUND, (method, answers)


def test_one_entry_over_the_bound_as_json_is_a_page_of_its_own() -> None:
    server = MCPServer("huge", provenance=False)
    server.tool(name="before", description="small")(lambda: "b")
    server.tool(name="huge", description="h" * 2_000_000)(lambda: "h")
    server.tool(name="after", description="small")(lambda: "a")

    async def main(url: str) -> list[list[str]]:
        pages, cursor = [], None
        with anyio.fail_after(60):
            async with measured_client(url + "mcp", {}) as session:
                while True:
                    page = await session.list_tools(params=t.PaginatedRequestParams(cursor=cursor) if cursor else None)
                    pages.append([tool.name for tool in page.tools])
                    cursor = page.next_cursor
                    if cursor is None:
                        return pages

    with serve(server) as url:
        assert anyio.run(main, url) == [["before"], ["huge"], ["after"]]
