"""A client without MCP Tasks cancels a background job with the built-in ``cancel_job`` tool.

Found by a fresh-user trial (trial 5, F16): a job-id client (the official Python SDK has no tasks
API; most assistants) could only wait a job out — no cancel tool, and ``notifications/cancelled``
of the start call comes after its answer (the job handle), when there is no request left to
cancel. ``cancel_job(job_id)`` is listed beside ``get_job_result`` once a background tool exists,
and answers to the job's owner only, as ``get_job_result`` does.

A real server, the official ``mcp`` client, and REST.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx2 as httpx
import pytest
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer, Principal


def build(seen: threading.Event, started: threading.Event, **options: Any) -> MCPServer:
    server = MCPServer("cancellable", job_store="memory", **options)

    @server.async_tool()
    def spin(seconds: float, ctx: Context) -> dict:
        """Run until cancelled or ``seconds`` passed."""
        started.set()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if ctx.is_cancelled():
                seen.set()
                return {"stopped": True}
            time.sleep(0.02)
        return {"done": seconds}

    return server


@pytest.mark.anyio
async def test_cancel_job_stops_a_job_and_only_its_owner_may() -> None:
    seen, started = threading.Event(), threading.Event()
    with serve(build(seen, started)) as url:
        async with mcp_client(url + "mcp") as client, mcp_client(url + "mcp") as stranger:
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert sorted(names) == ["cancel_job", "get_job_result", "spin"]
            job_id = (await client.call_tool("spin", {"seconds": 30})).structured_content["job_id"]
            assert started.wait(10)

            refused = await stranger.call_tool("cancel_job", {"job_id": job_id})
            assert refused.is_error
            assert refused.structured_content["status"] == "not_found"
            assert not seen.is_set()

            answer = await client.call_tool("cancel_job", {"job_id": job_id})
            assert not answer.is_error
            assert answer.structured_content == {"status": "cancelled", "job_id": job_id}
            assert seen.wait(10)  # the function saw it
            polled = await client.call_tool("get_job_result", {"job_id": job_id})
            assert polled.structured_content["status"] == "cancelled"
            again = (await client.call_tool("cancel_job", {"job_id": job_id})).structured_content
            assert again["status"] == "cancelled"
            assert "already ended" in again["message"]


def test_cancel_job_over_rest_and_only_with_background_tools() -> None:
    seen, started = threading.Event(), threading.Event()
    with serve(build(seen, started)) as url:
        job_id = httpx.post(url + "tools/spin", json={"seconds": 30}, timeout=10).json()["job_id"]
        assert started.wait(10)
        answer: Any = httpx.post(url + "tools/cancel_job", json={"job_id": job_id}, timeout=10).json()
        assert answer == {"status": "cancelled", "job_id": job_id}
        assert seen.wait(10)

    plain = MCPServer("no-jobs", job_store="memory")

    @plain.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    assert [tool.name for tool in plain.core.registry.tools.values()] == ["add"]


def test_a_refused_cancel_over_rest_is_a_404_status_object_as_get_job_result_answers() -> None:
    """Trial 10, F1: ``POST /tools/cancel_job`` of an unknown id, or of another principal's job,
    answered 500 with the status object JSON-encoded inside ``{"error": "<json>"}``; it answers what
    ``get_job_result`` answers for the same id: 404 and the plain status object. Over MCP both stay
    an ``isError`` result carrying that object."""
    seen, started = threading.Event(), threading.Event()
    users = {"alice-token": Principal("alice"), "bob-token": Principal("bob")}
    server = build(seen, started, auth=users.get)

    def as_user(token: str, name: str, body: dict[str, Any]) -> httpx.Response:
        return httpx.post(f"{url}tools/{name}", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=10)

    with serve(server) as url:
        for token, job_id in (("alice-token", "nope"), ("bob-token", None)):
            if job_id is None:  # alice's running job, which bob may not see
                job_id = as_user("alice-token", "spin", {"seconds": 30}).json()["job_id"]
                assert started.wait(10)
            polled = as_user(token, "get_job_result", {"job_id": job_id})
            cancelled = as_user(token, "cancel_job", {"job_id": job_id})
            assert polled.status_code == 404, polled.text
            assert cancelled.status_code == 404, cancelled.text
            assert cancelled.json() == polled.json()
            assert cancelled.json()["status"] == "not_found"
            assert cancelled.json()["job_id"] == job_id
        assert not seen.is_set()  # alice's job untouched by bob's refused cancel
        assert as_user("alice-token", "cancel_job", {"job_id": job_id}).json()["status"] == "cancelled"
        assert seen.wait(10)
