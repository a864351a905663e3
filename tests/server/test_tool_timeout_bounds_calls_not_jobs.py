"""``tool_timeout`` answers a slow call with a tool error; an ``@async_tool`` job is exempt."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

from support import serve

from nanohubmcp import MCPServer


def rpc(base: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(base + "mcp", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["result"]


def test_a_slow_call_times_out_but_the_same_work_as_a_job_finishes() -> None:
    server = MCPServer("timeouts", tool_timeout=0.2)

    @server.tool()
    def slow() -> str:
        """Too slow for a call."""
        time.sleep(0.6)
        return "late"

    @server.async_tool()
    def slow_job() -> str:
        """Fine as a job."""
        time.sleep(0.6)
        return "finished"

    with serve(server) as base:
        result = rpc(base, "tools/call", {"name": "slow", "arguments": {}})
        assert result["isError"] is True
        assert "did not finish within 0.2 s" in result["content"][0]["text"]
        handle = json.loads(rpc(base, "tools/call", {"name": "slow_job", "arguments": {}})["content"][0]["text"])
        deadline = time.monotonic() + 10
        while True:
            status = rpc(base, "tools/call", {"name": "get_job_result", "arguments": {"job_id": handle["job_id"]}})
            state = json.loads(status["content"][0]["text"])
            if state["status"] != "running" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert state == {"status": "done", "job_id": handle["job_id"], "result": "finished"}
