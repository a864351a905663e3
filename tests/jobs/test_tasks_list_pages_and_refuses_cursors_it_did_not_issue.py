"""``tasks/list`` pages as ``tools/list`` does (MCP 2025-11-25, Server § Utilities § Pagination): with
``list_page_size`` a page holds that many tasks and ``nextCursor`` leads to the next; a cursor the server did
not issue is -32602, without a page size too (a page answered as one SSE event ends at the server's
``max_event_bytes`` and gives a cursor then: review r31 F4). It ignored ``cursor`` (trial12)."""

from __future__ import annotations

import base64

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import INVALID_PARAMS
from nanohubmcp.testing import RpcError, SyncMemoryClient, in_memory


def build(page_size: int | None) -> MCPServer:
    server = MCPServer("task-pages", job_store="memory", list_page_size=page_size)

    @server.async_tool()
    def work(n: int) -> int:
        """Double ``n`` in the background."""
        return 2 * n

    return server


def start_tasks(client: SyncMemoryClient, count: int) -> list[str]:
    return [client.call_tool("work", {"n": n}, task={})["task"]["taskId"] for n in range(count)]


def refusal(client: SyncMemoryClient, cursor: object) -> str:
    with pytest.raises(RpcError) as refused:
        client.request("tasks/list", {"cursor": cursor})
    assert refused.value.code == INVALID_PARAMS
    return str(refused.value.message)


def test_pages_of_the_page_size_follow_next_cursor_to_the_end() -> None:
    with in_memory(build(2), capabilities={}) as client:
        started = start_tasks(client, 5)
        seen, pages, cursor = [], [], None
        while True:
            page = client.request("tasks/list", {} if cursor is None else {"cursor": cursor})
            pages.append(len(page["tasks"]))
            seen += [task["taskId"] for task in page["tasks"]]
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert (pages, seen) == ([2, 2, 1], started)


def test_a_cursor_it_did_not_issue_is_invalid_params() -> None:
    with in_memory(build(2), capabilities={}) as client:
        start_tasks(client, 3)
        tools_cursor = base64.urlsafe_b64encode(b"work").decode()  # the shape of a tools/list cursor
        for cursor in ("not base64!", 7, tools_cursor):
            assert refusal(client, cursor).startswith("Invalid cursor: ")


def test_without_a_page_size_one_page_and_a_cursor_it_did_not_issue_is_invalid_params() -> None:
    with in_memory(build(None), capabilities={}) as client:
        started = start_tasks(client, 3)
        listed = client.request("tasks/list", {})
        assert [task["taskId"] for task in listed["tasks"]] == started
        assert "nextCursor" not in listed
        for cursor in ("anything", 7, base64.urlsafe_b64encode(b"work").decode()):
            assert refusal(client, cursor).startswith("Invalid cursor: ")
