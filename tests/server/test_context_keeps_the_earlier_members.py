"""Context members code written for 0.4.x uses: job_id, cancel_event, task metadata, log messages."""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

import pytest
from support import serve

from nanohubmcp import Context, MCPServer

HEADERS = {"Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25"}


def rpc(base: str, method: str, params: dict[str, Any], session: str | None = None) -> Any:
    headers = dict(HEADERS, **({"Mcp-Session-Id": session} if session else {}))
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    with urllib.request.urlopen(urllib.request.Request(base + "mcp", body, headers), timeout=10) as r:
        return r.headers.get("Mcp-Session-Id"), json.loads(r.read())


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

    with serve(server) as base:
        session, _ = rpc(base, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        _, created = rpc(base, "tools/call", {"name": "work", "arguments": {}, "task": {"ttl": 60000}}, session)
        task_id = created["result"]["task"]["taskId"]
        # Ask while the job runs, once it has published its metadata (not after a fixed pause).
        assert published.wait(10), "the job never started"
        _, got = rpc(base, "tasks/get", {"taskId": task_id}, session)
        release.set()
    assert seen["job"] == task_id
    assert seen["cancelled"] is False
    assert seen["log"] == [{"level": "info", "message": "started"}]
    assert seen["meta"] == {"org.nanohub/stage": "meshing", "org.nanohub/run": "r1"}
    assert got["result"]["_meta"] == {"org.nanohub/stage": "meshing", "org.nanohub/run": "r1"}


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

    with serve(server) as base:
        rpc(base, "tools/call", {"name": "meta", "arguments": {}})
    assert errors
    assert "reserved" in errors[0]


@pytest.mark.parametrize("name", ["job_id", "cancel_event", "task_metadata", "set_task_metadata",
                                  "get_log_messages"])
def test_the_members_exist_on_the_class(name: str) -> None:
    assert hasattr(Context, name)
