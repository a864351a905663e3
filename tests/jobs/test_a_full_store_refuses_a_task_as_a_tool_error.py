"""A full job store refuses a task-augmented ``tools/call`` (2025-11-25 ``params.task``, and the
2026-07-28 tasks extension) as it refuses a plain call: an ``isError`` result naming the limit, not
JSON-RPC -32603 "Internal error" (a client quota is no server fault; trial31 S10).
"""

from __future__ import annotations

import threading
from pathlib import Path

from modern.modern_wire import TASK_CAPS
from modern.modern_wire import Wire as ModernWire
from streams.stream_wire import Wire
from support import serve

from nanohubmcp import MCPServer


def test_a_task_the_full_store_refuses_is_a_tool_error_naming_the_limit(tmp_path: Path) -> None:
    server = MCPServer("capped-tasks", state_dir=str(tmp_path), max_jobs=10, max_jobs_per_owner=1)
    gate = threading.Event()

    @server.async_tool()
    def hold() -> str:
        """Wait for the test."""
        gate.wait(20)
        return "held"

    try:
        with serve(server) as url:
            wire = Wire(url)
            session = wire.initialize()
            first = wire.request("tools/call", {"name": "hold", "arguments": {}, "task": {"ttl": 60000}}, session)
            assert first["result"]["task"]["status"] == "working"
            for augmented in ({"task": {"ttl": 60000}}, {"task": {}}, {}):
                refused = wire.request("tools/call", {"name": "hold", "arguments": {}, **augmented}, session)
                assert "error" not in refused, refused
                assert refused["result"]["isError"] is True
                text = refused["result"]["content"][0]["text"]
                assert "Too many jobs for one client" in text
                assert "max_jobs_per_owner" in text

            modern = ModernWire(url + "mcp", caps=TASK_CAPS)
            held = modern.call("tools/call", {"name": "hold", "arguments": {}}).result
            assert held["resultType"] == "task"
            refused_modern = modern.call("tools/call", {"name": "hold", "arguments": {}})
            assert refused_modern.status == 200
            result = refused_modern.result
            assert result["isError"] is True
            assert result["resultType"] == "complete"
            assert "max_jobs_per_owner" in result["content"][0]["text"]
    finally:
        gate.set()
