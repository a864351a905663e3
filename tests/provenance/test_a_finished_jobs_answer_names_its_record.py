"""A finished job's answer names the job's provenance record, as the job handle did: the
``_meta["io.nanohub/provenance"]`` of ``get_job_result`` (official ``mcp`` client, ``server.call``),
the ``Link`` header of ``POST /tools/get_job_result`` and the ``_meta`` of 2025-11-25
``tasks/result`` (beside its ``io.modelcontextprotocol/related-task``) — for a job that ended
done, with an error, or cancelled. A poll of a running job names nothing yet.

Found by a fresh-user trial (trial 18, F1): provenance.md said "the finished job's result names it
too", but only the handle did; ``tasks/result`` replaced the result's ``_meta`` with its own.
A real server on a free port.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from jobs.job_server import Routes, wait_until
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

META = "io.nanohub/provenance"
RELATED_TASK = "io.modelcontextprotocol/related-task"
HAS_PROVENANCE = 'rel="http://www.w3.org/ns/prov#has_provenance"'


def build(release: threading.Event) -> MCPServer:
    server = MCPServer("job-records", job_store="memory")

    @server.async_tool()
    def square(n: int) -> dict[str, int]:
        """n squared, after the test lets it go (negative n: an error)."""
        release.wait(30)
        if n < 0:
            raise ValueError("n must not be negative")
        return {"square": n * n}

    @server.async_tool()
    def until_cancelled(ctx: Context) -> str:
        """Runs until cancelled."""
        while not ctx.is_cancelled():
            time.sleep(0.01)
        return "stopped"

    return server


@pytest.fixture
def served() -> Iterator[tuple[MCPServer, str, threading.Event]]:
    release = threading.Event()
    server = build(release)
    try:
        with serve(server) as url:
            yield server, url, release
    finally:
        release.set()


def port_of(url: str) -> int:
    return int(url.rstrip("/").rsplit(":", 1)[1])


def ended(server: MCPServer, job_id: str) -> Any:
    return wait_until(
        lambda: (r := server.call("get_job_result", {"job_id": job_id})).structured["status"] != "running" and r,
        "the job's end",
    )


@pytest.mark.anyio
async def test_get_job_result_names_the_record_once_the_job_ended(
    served: tuple[MCPServer, str, threading.Event],
) -> None:
    server, url, release = served
    async with mcp_client(url + "mcp") as client:
        started = await client.call_tool("square", {"n": 4})
        uri = started.meta[META]
        job_id = started.structured_content["job_id"]
        running = await client.call_tool("get_job_result", {"job_id": job_id})
        assert running.structured_content["status"] == "running"
        assert META not in (running.meta or {})  # no record is complete yet: nothing named
        release.set()
        while (done := await client.call_tool("get_job_result", {"job_id": job_id})).structured_content[
            "status"
        ] == "running":
            time.sleep(0.02)
        assert done.structured_content == {"status": "done", "job_id": job_id, "result": {"square": 16}}
        assert done.meta[META] == uri
        record = json.loads((await client.read_resource(uri)).contents[0].text)
        assert (record["job_id"], record["status"]) == (job_id, "completed")

        failed = await client.call_tool("square", {"n": -1})
        failed_id = failed.structured_content["job_id"]
        while (answer := await client.call_tool("get_job_result", {"job_id": failed_id})).structured_content[
            "status"
        ] == "running":
            time.sleep(0.02)
        assert answer.structured_content["status"] == "error"
        assert answer.meta[META] == failed.meta[META]

        stopping = await client.call_tool("until_cancelled", {})
        stopping_id = stopping.structured_content["job_id"]
        await client.call_tool("cancel_job", {"job_id": stopping_id})
        cancelled = await client.call_tool("get_job_result", {"job_id": stopping_id})
        assert cancelled.structured_content == {"status": "cancelled", "job_id": stopping_id}
        assert cancelled.meta[META] == stopping.meta[META]

    direct = server.call("square", {"n": 5})
    assert ended(server, direct.structured["job_id"])["_meta"][META] == direct["_meta"][META]


def test_rest_polling_names_the_record_in_a_link_header(served: tuple[MCPServer, str, threading.Event]) -> None:
    _, url, release = served
    release.set()
    routes = Routes(port_of(url))
    status, headers, started = routes.http("/tools/square", {"n": 3})
    assert status == 202, started
    link = headers["Link"]
    assert link.endswith(f">; {HAS_PROVENANCE}")

    def polled() -> tuple[int, dict[str, str], Any]:
        return routes.http("/tools/get_job_result", {"job_id": started["job_id"]})

    status, headers, body = wait_until(lambda: (p := polled())[2]["status"] != "running" and p, "the job's end")
    assert (status, body["result"]) == (200, {"square": 9})
    assert headers["Link"] == link


def test_tasks_result_keeps_the_results_meta_beside_the_related_task(
    served: tuple[MCPServer, str, threading.Event],
) -> None:
    _, url, release = served
    release.set()
    routes = Routes(port_of(url))
    session = routes.session()
    created = routes.rpc(session, "tools/call", {"name": "square", "arguments": {"n": 6}, "task": {"ttl": 60000}})
    task_id = created["result"]["task"]["taskId"]
    uri = created["result"]["_meta"][META]
    result = routes.rpc(session, "tasks/result", {"taskId": task_id})["result"]
    assert result["structuredContent"] == {"square": 36}
    assert result["_meta"] == {META: uri, RELATED_TASK: {"taskId": task_id}}


def test_the_tasks_extensions_result_names_the_record(served: tuple[MCPServer, str, threading.Event]) -> None:
    _, url, release = served
    release.set()
    routes = Routes(port_of(url))
    created = routes.modern("tools/call", {"name": "square", "arguments": {"n": 2}})["result"]
    assert created["resultType"] == "task"
    task = wait_until(
        lambda: (
            (t := routes.modern("tasks/get", {"taskId": created["taskId"]})["result"])["status"] == "completed" and t
        ),
        "the task's end",
    )
    assert task["result"]["structuredContent"] == {"square": 4}
    assert task["result"]["_meta"][META] == created["_meta"][META]
