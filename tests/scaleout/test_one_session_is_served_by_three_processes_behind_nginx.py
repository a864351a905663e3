"""A full session of the official client through nginx round-robin over three processes.

No stickiness: nginx sends each request to the next process, so initialize, the tool calls,
the elicitation answer, the subscription and the job polls land on different processes — the
processes' own logs say which served what. Everything works as with one process: progress in
order before the result, an elicitation asked by one process and answered to another, a
resource update produced by one process delivered on the GET stream another holds, a job
started on one process and read on others.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from bounded import ANSWER_SECONDS, answered_within
from cluster import Cluster
from support import mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def test_a_full_session_spans_the_processes(cluster: Cluster) -> None:
    from mcp import types

    updates: list[str] = []
    updated = asyncio.Event()

    async def on_message(message: Any) -> None:
        inner = getattr(message, "root", message)
        if isinstance(inner, types.ResourceUpdatedNotification):
            updates.append(str(inner.params.uri))
            updated.set()

    async def on_elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async with (
        answered_within(90, "the official client's session through nginx"),
        mcp_client(
            cluster.url, message_handler=on_message, elicitation_callback=on_elicit, read_timeout_seconds=ANSWER_SECONDS
        ) as session,
    ):
        pids = set()
        for _ in range(6):
            result = await session.call_tool("where", {})
            pids.add(json.loads(result.content[0].text)["pid"])
        assert len(pids) == 3, f"round-robin should reach all three processes, saw {pids}"

        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        result = await session.call_tool("count", {"n": 5}, progress_callback=on_progress)
        assert result.content[0].text.startswith("counted to 5")
        assert progress == [1, 2, 3, 4, 5]

        result = await session.call_tool("ask_name", {})
        assert result.content[0].text.startswith("hello Ada from "), result

        await session.subscribe_resource("note://current")
        # The client opens its GET stream on some process in the background: touch the note until an update
        # arrives through it (one touch usually suffices; the deadline bounds it).
        deadline = asyncio.get_running_loop().time() + 30
        attempt = 0
        while not updated.is_set() and asyncio.get_running_loop().time() < deadline:
            attempt += 1
            await session.call_tool("touch_note", {"text": f"second {attempt}"})
            try:
                await asyncio.wait_for(updated.wait(), 2)
            except asyncio.TimeoutError:
                continue
        assert "note://current" in updates

        started = await session.call_tool("slow_square", {"x": 7})
        job_id = json.loads(started.content[0].text)["job_id"]
        for _ in range(50):
            polled = await session.call_tool("get_job_result", {"job_id": job_id})
            body = json.loads(polled.content[0].text)
            if body.get("status") == "done":
                break
            await asyncio.sleep(0.1)
        assert body.get("result") == 49, body
    assert len(cluster.pids()) == 3, cluster.logs()
