"""A 2026-07-28 ``subscriptions/listen`` naming a task is told the task completed while the server's Redis (its
job store) is stopped as the task ends, so linking the data over ``max_inline_bytes`` cannot read or write the
job's record. The completion still comes, its data linked as every answer of the job links it during the outage
(the link not stored with the record: logged). Before, the listen's follower died of the ``StateUnavailable``
(unseen: nobody awaits it): no completion, the listen left open (review r24 MED-1); then the result was told
whole, unlinked.

Tasks extension (SEP-2663) § Task Status Notifications.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer

sys.path.insert(0, str(Path(__file__).parents[1] / "modern"))
from modern_wire import TASK_CAPS, Wire

pytestmark = pytest.mark.timeout(120)
DATA = {"y": list(range(18_000))}
"""About 100 KB of JSON: over the server's ``max_inline_bytes``, so its answer keeps it and links it."""


@pytest.fixture
def served(redis_server: RedisServer) -> Iterator[tuple[Wire, threading.Event]]:
    let_go = threading.Event()
    server = MCPServer("listen-outage", max_inline_bytes=4096, state_url=redis_server.url)

    @server.async_tool()
    def held_big() -> dict[str, Any]:
        """About 100 KB of data, once the test lets it go."""
        assert let_go.wait(60)
        return DATA

    try:
        with serve(server) as base:
            yield Wire(base + "mcp", caps=TASK_CAPS, timeout=30), let_go
            redis_server.start()  # (back before the server stops: it closes its Redis state)
    finally:
        let_go.set()


def test_the_completion_is_told_with_its_data_linked_while_redis_is_down(
    served: tuple[Wire, threading.Event], redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    wire, let_go = served
    task_id = wire.call("tools/call", {"name": "held_big", "arguments": {}}).result["taskId"]
    with wire.listen("subscriptions/listen", {"notifications": {"taskIds": [task_id]}}) as stream:
        ack = stream.next(timeout=10)
        assert ack is not None
        assert ack["method"] == "notifications/subscriptions/acknowledged", ack
        redis_server.stop()  # the job store goes away as the task ends
        let_go.set()
        told = stream.next(timeout=30)
        while told is not None and told["params"]["status"] != "completed":
            told = stream.next(timeout=30)
    assert told is not None, "the listen was never told the task completed"
    assert told["params"]["taskId"] == task_id
    link = told["params"]["result"]["content"][-1]
    assert link["type"] == "resource_link", told  # linked, as a poll of it answers while the store is down
    assert json.loads(wire.call("resources/read", {"uri": link["uri"]}).result["contents"][0]["text"]) == DATA
    assert any("could not be read or written" in r.getMessage() and task_id in r.getMessage()
               for r in caplog.records)
    # The records hold the outage's exceptions, whose tracebacks hold the server: let go, so that its job store's
    # threads end before the Redis stops (else the fixture waits out its bound for them).
    caplog.clear()
