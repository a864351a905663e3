"""A ``nextCursor`` is sealed with a key derived from the one the shared state store (Redis) keeps for
``requestState`` (``server.handlers.cursors``): a cursor one process issued pages on another behind the same URL
(a load balancer sends each request anywhere), for ``tasks/list`` (bound to the session, which both processes
serve) and for ``tools/list``; without the store's key each process would refuse the other's cursors. Two
servers in this process share a real redis-server, with no ``state_secret``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack

import pytest
import wire
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)


def build(state_url: str) -> MCPServer:
    server = MCPServer("cursors", state_url=state_url, list_page_size=2)

    @server.async_tool()
    def work(n: int) -> int:
        """Double ``n`` in the background."""
        return 2 * n

    for name in ("one", "two", "three"):
        server.tool(name=name, description=name)(answering(name))
    return server


def answering(text: str) -> Callable[[], str]:
    return lambda: text


def test_a_cursor_one_process_issued_pages_on_the_other(redis_server: RedisServer) -> None:
    with ExitStack() as stack:
        first, second = (stack.enter_context(serve(build(redis_server.url))) + "mcp" for _ in range(2))
        session = wire.initialize(first)
        ids = [str(wire.result(first, session, "tools/call", {"name": "work", "arguments": {"n": n},
                                                               "task": {"ttl": 60000}})["task"]["taskId"])
               for n in range(5)]
        wait_until(lambda: all(wire.result(first, session, "tasks/get", {"taskId": t})["status"] == "completed"
                               for t in ids), "the tasks end", 60)
        for method, key in (("tasks/list", "tasks"), ("tools/list", "tools")):
            names, cursor, at = [], None, 0
            while True:  # each page from the other process than the one that issued its cursor
                url = (first, second)[at % 2]
                page = wire.result(url, session, method, {} if cursor is None else {"cursor": cursor})
                names += [entry["taskId" if key == "tasks" else "name"] for entry in page[key]]
                cursor, at = page.get("nextCursor"), at + 1
                if cursor is None:
                    break
            assert at == 3, method
            expected = ids if key == "tasks" else ["work", "one", "two", "three", "get_job_result", "cancel_job"]
            assert sorted(names) == sorted(expected), (method, names)
