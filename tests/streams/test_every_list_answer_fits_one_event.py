"""review r31 F4. ``tasks/list`` was unpaged by default and never held to the server's ``max_event_bytes``: over legacy
SSE, 20 failed tasks with long messages made one 1.3 MB event, which a client reading 1 MiB an event (the official
one) drops with its session; ``tools/list``, ``resources/list``, ``resources/templates/list`` and ``prompts/list``
alike with many large entries. Now a list answered as one event ends its page before the bound and gives
``nextCursor`` (even without ``list_page_size``); as JSON (Streamable HTTP) it is bounded alike since issue 28's
leftover (``test_every_list_answer_is_bounded_as_json_too``). Real servers: the official client where it has the
method, raw legacy SSE for ``tasks/list`` (mcp 2.3.0 sends none)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp.types import PaginatedRequestParams
from stream_wire import Wire
from support import mcp_client, rpc_message, serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.errors import ToolError

pytestmark = pytest.mark.timeout(180)

BOUND = 1 << 20
COUNT = 300
PAD = "d" * 5000  # 300 entries of ~5 kB: ~1.5 MB in one answer


def registry_server() -> MCPServer:
    server = MCPServer("lists", provenance=False)
    for i in range(COUNT):
        server.tool(name=f"tool_{i:03}", description=f"tool {i} {PAD}")(lambda: "ok")
        server.resource(f"data://item/{i:03}", name=f"item {i}", description=f"item {i} {PAD}")(lambda: "x")
        server.resource(f"data://group{i:03}/{{part}}", name=f"group {i}", description=PAD)(lambda part: part)
        server.prompt(name=f"prompt_{i:03}", description=f"prompt {i} {PAD}")(lambda: "p")
    return server


LISTS = {
    "tools/list": ("list_tools", "tools", "name", [f"tool_{i:03}" for i in range(COUNT)]),
    "resources/list": ("list_resources", "resources", "uri", [f"data://item/{i:03}" for i in range(COUNT)]),
    "resources/templates/list": ("list_resource_templates", "resourceTemplates", "uriTemplate",
                                 [*(f"data://group{i:03}/{{part}}" for i in range(COUNT)),
                                  "nanohubmcp://results/{id}{?part}"]),  # the server's own, last
    "prompts/list": ("list_prompts", "prompts", "name", [f"prompt_{i:03}" for i in range(COUNT)]),
}


async def every_page(client: Any, method: str) -> tuple[list[str], int]:
    call, key, field, _ = LISTS[method]
    names: list[str] = []
    cursor, pages = None, 0
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await getattr(client, call)(params=params)
        pages += 1
        names += [str(getattr(entry, "uri_template" if field == "uriTemplate" else field)) for entry in
                  getattr(page, {"resourceTemplates": "resource_templates"}.get(key, key))]
        cursor = page.next_cursor
        if cursor is None:
            return names, pages


@pytest.mark.parametrize("method", list(LISTS))
def test_a_registry_list_over_legacy_sse_comes_in_pages_the_official_client_reads(method: str) -> None:
    async def main(url: str) -> tuple[list[str], int, Any]:
        with anyio.fail_after(60):
            async with mcp_client(url + "sse", transport="sse") as client:
                names, pages = await every_page(client, method)
                return names, pages, await client.call_tool("tool_000", {})  # the session goes on

    with serve(registry_server()) as url:
        names, pages, after = anyio.run(main, url)
    assert names == LISTS[method][3]
    assert pages >= 2
    assert after.content[0].text == "ok"


def test_one_entry_over_the_bound_is_an_error_naming_it_and_the_cursor_past_it() -> None:
    server = MCPServer("huge", provenance=False)
    server.tool(name="before", description="small")(lambda: "b")
    server.tool(name="huge", description="h" * 2_000_000)(lambda: "h")
    server.tool(name="after", description="small")(lambda: "a")

    async def main(url: str) -> tuple[list[str], MCPError, list[str]]:
        with anyio.fail_after(60):
            async with mcp_client(url + "sse", transport="sse") as client:
                first = await client.list_tools()
                assert first.next_cursor
                with pytest.raises(MCPError) as refused:
                    await client.list_tools(params=PaginatedRequestParams(cursor=first.next_cursor))
                rest = await client.list_tools(params=PaginatedRequestParams(cursor=refused.value.data["nextCursor"]))
                return [t.name for t in first.tools], refused.value, [t.name for t in rest.tools]

    with serve(server) as url:
        first, refused, rest = anyio.run(main, url)
    assert (first, rest) == (["before"], ["after"])
    assert refused.code == -32603
    assert refused.message.startswith("tools/list: the entry 'huge' alone is 2000")
    assert "more than a client reads in one server-sent event (1048576 bytes, 1 MiB)" in refused.message
    assert refused.data["entry"] == "huge"
    assert refused.data["bytes"] > 2_000_000
    assert refused.data["limit"] == BOUND


def failing_server() -> MCPServer:
    server = MCPServer("tl", provenance=False)

    @server.async_tool()
    def fails(i: int) -> str:
        """Fails with a long explanation."""
        raise ToolError(f"run {i} failed: " + "x" * 70_000)

    return server


def test_tasks_list_over_legacy_sse_is_paged_within_the_bound_and_lists_every_task() -> None:
    server, n = failing_server(), 20
    with serve(server) as url:
        wire = Wire(url, timeout=60)
        events, endpoint = wire.legacy()
        try:
            wire.legacy_post(endpoint, rpc_message("initialize", {
                "protocolVersion": "2025-11-25", "capabilities": {"tasks": {}},
                "clientInfo": {"name": "raw", "version": "0"}}, 0))
            events.until(lambda m: m.get("id") == 0)
            wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            started = []
            for i in range(n):
                wire.legacy_post(endpoint, rpc_message("tools/call", {"name": "fails", "arguments": {"i": i},
                                                                       "task": {"ttl": 600000}}, f"c{i}"))
                _, made = events.until(lambda m, i=i: m.get("id") == f"c{i}", timeout=30)
                started.append(made["result"]["task"]["taskId"])
            wait_until(lambda: [j["status"] for j in server.core.job_service.jobs.listing(100)] == ["failed"] * n,
                       "every task failed")
            listed: list[dict[str, Any]] = []
            cursor, sizes = None, []
            for page_id in range(n + 1):
                wire.legacy_post(endpoint, rpc_message("tasks/list", {} if cursor is None else {"cursor": cursor},
                                                       f"L{page_id}"))
                while True:
                    event = events.next(timeout=60)
                    assert event is not None, "the stream ended"
                    message = json.loads(event.data) if event.data else {}
                    if message.get("id") == f"L{page_id}":
                        break
                sizes.append(len(event.data.encode()) + len("data: \n\n"))
                listed += message["result"]["tasks"]
                cursor = message["result"].get("nextCursor")
                if cursor is None:
                    break
        finally:
            events.close()
    assert [t["taskId"] for t in listed] == started
    assert len(sizes) >= 2, sizes
    assert max(sizes) <= BOUND, sizes
    assert {t["status"] for t in listed} == {"failed"}
    assert all(len(t["statusMessage"]) > 65_536 for t in listed)
