"""A ``*/list`` cursor names the page's last entry and when it was registered: going on after an entry that was
removed and registered again (a tool re-defined while a client lists: it moved to the end) is the documented
-32602 "list again without a cursor", never a silent skip. Before (trial59 F1), the cursor was the bare name, so
the page after it was ``[]`` with no ``nextCursor``, and the tools in between (never touched) were missing from
the client's list. A list whose entries stayed where they were pages as before: an entry re-defined in place, or
one removed before the cursor. ``tools/list`` and ``prompts/list`` (one code for every registry list); a real
server, the official ``mcp`` client."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

NAMES = "abcdef"


def build() -> MCPServer:
    server = MCPServer("relisted", list_page_size=2)
    for name in NAMES:
        add(server, name, f"tool {name}")
    return server


def add(server: MCPServer, name: str, doc: str) -> None:
    def tool(x: int) -> int:
        return x

    server.tool(name=name, description=doc)(tool)

    def prompt() -> str:
        return doc

    server.prompt(name=name, description=doc)(prompt)


async def listing(send: Any, method: str, key: str, cursor: str | None = None) -> list[str]:
    """Every entry's name from ``cursor`` on, following ``nextCursor``."""
    names: list[str] = []
    while True:
        page = await send(method, {} if cursor is None else {"cursor": cursor})
        names += [entry["name"] for entry in page[key]]
        cursor = page.get("nextCursor")
        if cursor is None:
            return names


def run(url: str, method: str, key: str, change: Any) -> tuple[list[str], Any, list[str]]:
    """The first page's names, what going on after its cursor gave once ``change`` ran (the names, or the
    MCPError), and a fresh listing."""

    async def main() -> tuple[list[str], Any, list[str]]:
        from mcp.shared.exceptions import MCPError

        with anyio.fail_after(60):
            async with mcp_client(url + "mcp") as client:
                send = client._dispatcher.send_raw_request
                first = await send(method, {})
                change()
                try:
                    after: Any = await listing(send, method, key, first["nextCursor"])
                except MCPError as exc:
                    after = exc
                return [entry["name"] for entry in first[key]], after, await listing(send, method, key)

    return anyio.run(main)


@pytest.mark.parametrize(("method", "key"), [("tools/list", "tools"), ("prompts/list", "prompts")])
def test_going_on_after_an_entry_registered_again_is_invalid_params(method: str, key: str) -> None:
    server = build()

    def again() -> None:
        (server.remove_tool if key == "tools" else server.remove_prompt)("b")
        add(server, "b", "b again")

    with serve(server) as url:
        first, after, fresh = run(url, method, key, again)
    assert first == ["a", "b"]
    assert fresh == ["a", "c", "d", "e", "f", "b"]
    assert not isinstance(after, list), f"the cursor went on silently: {after}"
    assert after.code == -32602
    assert "list again without a cursor" in after.message, after.message


@pytest.mark.parametrize(("method", "key"), [("tools/list", "tools"), ("prompts/list", "prompts")])
def test_a_list_whose_entries_kept_their_places_pages_on(method: str, key: str) -> None:
    server = build()

    def in_place() -> None:
        add(server, "b", "b re-defined in place")  # registered again without removal: it keeps its place
        (server.remove_tool if key == "tools" else server.remove_prompt)("a")  # before the cursor: nothing skipped

    with serve(server) as url:
        first, after, fresh = run(url, method, key, in_place)
    assert (first, after, fresh) == (["a", "b"], ["c", "d", "e", "f"], ["b", "c", "d", "e", "f"])


def own_last(page_size: int) -> MCPServer:
    server = MCPServer("own-last", list_page_size=page_size, job_store="memory")

    @server.async_tool()
    def anneal(n: int) -> int:
        """Anneal in the background."""
        return n

    add(server, "echo", "echo")
    add(server, "shown", "shown")
    return server


def test_the_servers_own_tools_list_after_the_authors_and_move_after_a_new_one() -> None:
    """``get_job_result`` and ``cancel_job`` (registered with the first ``@async_tool``) list after the author's
    tools, so the author's lead the first page (trial59 F6: they came first); a tool registered later goes before
    them, so a cursor naming one of them (its place changed) is refused, never skipping the new tool."""
    server = own_last(3)

    def another() -> None:
        add(server, "later", "registered later")

    with serve(server) as url:
        first, after, fresh = run(url, "tools/list", "tools", another)
    assert first == ["anneal", "echo", "shown"]
    assert fresh == ["anneal", "echo", "shown", "later", "get_job_result", "cancel_job"]
    assert after == ["later", "get_job_result", "cancel_job"]  # the cursor named "shown", which kept its place
    server = own_last(2)
    add(server, "later", "registered later")  # pages [anneal, echo], [shown, later], [get_job_result, cancel_job]
    with serve(server) as url:
        async def main() -> Any:
            from mcp.shared.exceptions import MCPError

            async with mcp_client(url + "mcp") as client:
                send = client._dispatcher.send_raw_request
                one = await send("tools/list", {})
                two = await send("tools/list", {"cursor": one["nextCursor"]})
                add(server, "newest", "newest")  # before get_job_result: the cursor after "later" still holds
                three = await send("tools/list", {"cursor": two["nextCursor"]})
                add(server, "last", "last")  # get_job_result, which the cursor names, moves after it
                with pytest.raises(MCPError) as refused:
                    await send("tools/list", {"cursor": three["nextCursor"]})
                return [[t["name"] for t in page["tools"]] for page in (one, two, three)], refused.value

        pages, refused = anyio.run(main)
    assert pages == [["anneal", "echo"], ["shown", "later"], ["newest", "get_job_result"]]
    assert refused.code == -32602
