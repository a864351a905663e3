"""Every way in works through nginx round-robin over three processes, no stickiness.

- fastmcp (the stateless 2026-07-28 era): tools, progress, an elicitation by multi round-trip
  (its ``requestState`` signed by one process and accepted by another), a job;
- ``subscriptions/listen`` held by one process gets a resource update another produced;
- legacy HTTP+SSE with the official client: the stream on one process, its POSTs on others,
  the answers (and progress, and a question to the client) on the stream;
- ``POST /`` and REST ``POST /tools/<name>``: sessionless calls served by every process.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import wire
from bounded import ANSWER_SECONDS, SESSION_SECONDS, answered_within
from cluster import Cluster
from support import mcp_client

sys.path.insert(0, str(Path(__file__).parents[1] / "modern"))
from modern_wire import Wire

pytestmark = pytest.mark.timeout(120)


@pytest.mark.anyio
async def test_fastmcp_runs_a_stateless_session_across_the_processes(calm_cluster: Cluster) -> None:
    import fastmcp

    async def elicit(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
        return {"name": "Ada"}

    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async with (
        answered_within(SESSION_SECONDS, "fastmcp's session through nginx"),
        fastmcp.Client(
            calm_cluster.url, elicitation_handler=elicit, progress_handler=on_progress, timeout=ANSWER_SECONDS
        ) as client,
    ):
        pids = {json.loads((await client.call_tool("where", {})).content[0].text)["pid"] for _ in range(6)}
        assert len(pids) == 3
        greeted = await client.call_tool("ask_name", {})
        assert greeted.content[0].text.startswith("hello Ada from ")
        counted = await client.call_tool("count", {"n": 4})
        assert counted.content[0].text.startswith("counted to 4")
        note = await client.read_resource("note://current")
        assert note[0].text
        squared = await client.call_tool("slow_square", {"x": 6})
        assert "36" in json.dumps([c.model_dump() for c in squared.content]) or squared.structured_content
    assert progress == [1, 2, 3, 4]


def test_a_listen_stream_gets_updates_produced_by_another_process(calm_cluster: Cluster) -> None:
    listener, producer, _ = calm_cluster.servers
    stream = Wire(listener.url).listen(
        "subscriptions/listen", {"notifications": {"resourceSubscriptions": ["note://current"]}}
    )
    acknowledged = stream.next()
    assert acknowledged["method"] == "notifications/subscriptions/acknowledged"
    answered = Wire(producer.url).call("tools/call", {"name": "touch_note", "arguments": {"text": "x"}})
    assert answered.status == 200
    update = stream.next()
    assert update["method"] == "notifications/resources/updated"
    assert update["params"]["uri"] == "note://current"
    stream.close()


@pytest.mark.anyio
async def test_legacy_sse_stream_and_posts_on_different_processes(calm_cluster: Cluster) -> None:
    from mcp import types

    async def on_elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content={"name": "Lin"})

    sse_url = calm_cluster.url.removesuffix("/mcp") + "/sse"
    before = {s.port: len(s.text()) for s in calm_cluster.servers}
    seen: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(value)

    async with (
        answered_within(SESSION_SECONDS, "the legacy SSE session through nginx"),
        mcp_client(
            sse_url, transport="sse", elicitation_callback=on_elicit, read_timeout_seconds=ANSWER_SECONDS
        ) as session,
    ):
        pids = set()
        for _ in range(6):
            pids.add(json.loads((await session.call_tool("where", {})).content[0].text)["pid"])
        assert len(pids) == 3
        counted = await session.call_tool("count", {"n": 3}, progress_callback=on_progress)
        assert counted.content[0].text.startswith("counted to 3")
        assert seen == [1, 2, 3]
        greeted = await session.call_tool("ask_name", {})
        assert greeted.content[0].text.startswith("hello Lin from ")
        await asyncio.sleep(0)
    posts = [s for s in calm_cluster.servers if "POST /messages/" in s.text()[before[s.port] :]]
    assert len(posts) >= 2, "the legacy POSTs should reach several processes"


def test_post_root_and_rest_are_served_by_every_process(calm_cluster: Cluster) -> None:
    base = calm_cluster.url.removesuffix("/mcp")
    pids = set()
    for rid in range(3):
        reply = wire.httpx.post(
            base + "/",
            json={"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "where", "arguments": {}}},
            timeout=10,
        )
        assert reply.status_code == 200, reply.text
        pids.add(json.loads(reply.json()["result"]["content"][0]["text"])["pid"])
    for _ in range(3):
        reply = wire.httpx.post(base + "/tools/where", json={}, timeout=10)
        assert reply.status_code == 200, reply.text
        body = reply.json()
        pids.add((body.get("result") or body)["pid"])
    assert len(pids) == 3
    started = wire.httpx.post(base + "/tools/slow_square", json={"x": 5}, timeout=10)
    assert started.status_code == 202, started.text
    job_id = started.json()["job_id"]
    for _ in range(50):
        polled = wire.httpx.post(base + "/tools/get_job_result", json={"job_id": job_id}, timeout=10).json()
        if polled.get("status") == "done":  # REST answers a dict as itself
            break
        time.sleep(0.1)
    assert polled["result"] == 25, polled


def test_a_request_state_is_good_for_one_retry_on_any_process(calm_cluster: Cluster) -> None:
    asker, answerer, replayer = (Wire(server.url) for server in calm_cluster.servers)
    asked = asker.call("tools/call", {"name": "ask_name", "arguments": {}}).result
    assert asked["resultType"] == "input_required"
    (key,) = asked["inputRequests"]
    retry = {
        "name": "ask_name",
        "arguments": {},
        "requestState": asked["requestState"],
        "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
    }
    done = answerer.call("tools/call", retry).result  # signed by one process, accepted by another
    assert done["content"][0]["text"].startswith("hello Ada from ")
    replayed = replayer.call("tools/call", retry)
    assert replayed.error["code"] == -32602
    assert "already used" in replayed.error["message"]
