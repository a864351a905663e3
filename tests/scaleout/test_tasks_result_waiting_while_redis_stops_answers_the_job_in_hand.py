"""``tasks/result`` (MCP 2025-11-25 tasks) waiting for a task while the server's shared Redis stops answers when the
task ends: the job is in hand (this process ran it), so its result is answered from it, its data over
``max_inline_bytes`` linked as ``get_job_result`` and ``tasks/get`` link it during an outage
(``test_a_jobs_large_data_is_answered_while_the_job_store_is_down``); the link is stored with the record once the
store is back, and the next ``tasks/result`` answers the same link, whose data reads back. A ``tasks/result`` sent
during the outage is refused 503 "The server's shared state store is unreachable" (its session is kept there):
never -32603, never a wait without end.

A real server answers raw HTTP; a real redis-server (on disk: its restart forgets no record) is stopped.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from redis_server import RedisServer
from support import serve, wait_until
from wire import call, initialize

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(180)
DATA = {"y": list(range(18_000))}
"""About 100 KB of JSON: over the server's ``max_inline_bytes``, so its answer keeps it and links it."""
CAPS = {"tasks": {"requests": {"tools": {"call": {}}}}}


def _answer(reply: Any) -> dict[str, Any]:
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    assert "result" in body, body
    return dict(body["result"])


def test_a_waiting_tasks_result_answers_the_job_in_hand_while_redis_is_down(redis_on_disk: RedisServer) -> None:
    gate = threading.Event()
    server = MCPServer("tasks-result-outage", max_inline_bytes=4096, state_url=redis_on_disk.url)

    @server.async_tool()
    def gated(big: bool) -> dict[str, Any]:
        """Its data (about 100 KB if ``big``) once the test opens the gate."""
        gate.wait(60)
        return DATA if big else {"y": [1, 2]}

    with serve(server) as base, ThreadPoolExecutor(2) as pool:
        url = base + "mcp"
        session = initialize(url, capabilities=CAPS)
        tasks = {big: _answer(call(url, session, "tools/call", {"name": "gated", "arguments": {"big": big},
                                                                "task": {"ttl": 60000}}))["task"]["taskId"]
                 for big in (True, False)}
        waiting = {big: pool.submit(call, url, session, "tasks/result", {"taskId": task}, None, 90)
                   for big, task in tasks.items()}
        jobs = [server.core.job_service.jobs.get(task, session) for task in tasks.values()]
        # (each tasks/result waits on its job's end: asyncio.Event keeps its waiters in _waiters)
        wait_until(lambda: all(len(job.done._waiters) == 1 for job in jobs), "both tasks/result to wait", 30)
        redis_on_disk.stop()
        try:
            refused = call(url, session, "tasks/result", {"taskId": tasks[True]})
            assert refused.status_code == 503, refused.text
            assert "shared state store is unreachable" in refused.json()["error"]["message"]
            gate.set()
            small = _answer(waiting[False].result(60))
            big = _answer(waiting[True].result(60))
        finally:
            gate.set()
            redis_on_disk.start()  # (back before the server stops: it closes its Redis state)
        assert small["structuredContent"] == {"y": [1, 2]}
        assert small["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": tasks[False]}
        link = big["content"][-1]
        assert link["type"] == "resource_link", big
        assert "structuredContent" not in big
        again = _answer(call(url, session, "tasks/result", {"taskId": tasks[True]}))
        assert again["content"][-1]["uri"] == link["uri"]  # the outage's copy, stored with the record
        read = _answer(call(url, session, "resources/read", {"uri": link["uri"]}))
        assert json.loads(read["contents"][0]["text"]) == DATA
