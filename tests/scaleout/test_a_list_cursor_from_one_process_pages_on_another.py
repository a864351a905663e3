"""A ``nextCursor`` is sealed with a key derived from the one the shared state store (Redis) keeps for
``requestState`` (``server.handlers.cursors``): a cursor one process issued pages on another behind the same URL
(a load balancer sends each request anywhere), for ``tasks/list`` (bound to the session, which both processes
serve) and for ``tools/list``; without the store's key each process would refuse the other's cursors. Two
servers in this process share a real redis-server, with no ``state_secret``."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
import wire
from paged_lists import paged_server
from redis_server import RedisServer
from support import serve, wait_until

pytestmark = pytest.mark.timeout(120)


def test_a_cursor_one_process_issued_pages_on_the_other(redis_server: RedisServer) -> None:
    with ExitStack() as stack:
        first, second = (stack.enter_context(serve(paged_server("cursors", state_url=redis_server.url))) + "mcp"
                         for _ in range(2))
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
