"""Context members code written for 0.4.x uses: job_id, cancel_event, task metadata, log messages."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from nanohubmcp import Context, MCPServer
from nanohubmcp.testing import in_memory


def test_a_job_sees_its_id_publishes_task_metadata_and_keeps_its_log() -> None:
    server = MCPServer("ctx")
    seen: dict[str, Any] = {}
    published, release = threading.Event(), threading.Event()

    @server.async_tool()
    def work(ctx: Context) -> str:
        """Background work."""
        ctx.set_task_metadata({"stage": "meshing"}, run="r1")
        ctx.info("started")
        seen.update(job=ctx.job_id, cancelled=ctx.cancel_event.is_set(), log=ctx.get_log_messages(),
                    meta=ctx.task_metadata)
        published.set()
        release.wait(10)
        return "ok"

    with in_memory(server, capabilities={}) as client:  # a 2025-11-25 session
        created = client.request("tools/call", {"name": "work", "arguments": {}, "task": {"ttl": 60000}})
        task_id = created["task"]["taskId"]
        # Ask while the job runs, once it has published its metadata (not after a fixed pause).
        assert published.wait(10), "the job never started"
        got = client.request("tasks/get", {"taskId": task_id})
        release.set()
    assert seen["job"] == task_id
    assert seen["cancelled"] is False
    assert seen["log"] == [{"level": "info", "message": "started"}]
    assert seen["meta"] == {"org.nanohub/stage": "meshing", "org.nanohub/run": "r1"}
    assert got["_meta"] == {"org.nanohub/stage": "meshing", "org.nanohub/run": "r1"}


def test_reserved_metadata_namespaces_are_refused() -> None:
    server = MCPServer("ctx")
    errors: list[str] = []

    @server.tool()
    def meta(ctx: Context) -> str:
        """Try a reserved key."""
        try:
            ctx.set_task_metadata({"io.modelcontextprotocol/x": 1})
        except ValueError as exc:
            errors.append(str(exc))
        return "done"

    with in_memory(server, session=False, version="2025-11-25") as client:
        client.call_tool("meta")
    assert errors
    assert "reserved" in errors[0]


@pytest.mark.parametrize("name", ["job_id", "cancel_event", "task_metadata", "set_task_metadata",
                                  "get_log_messages"])
def test_the_members_exist_on_the_class(name: str) -> None:
    assert hasattr(Context, name)
