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


def test_a_call_queued_behind_busy_workers_says_so_and_a_timed_out_call_is_told_to_stop(monkeypatch) -> None:
    # Regression (fresh-user trial): a call that never got a worker was told it "did not finish",
    # and a timed-out tool never saw ctx.is_cancelled(), so it kept its worker to the end.
    # (With no room to abandon a stuck worker, and a tool the quick lane does not take: one
    # whose call is still running.)
    import threading

    from nanohubmcp import Context
    from nanohubmcp.server.calls import workers

    monkeypatch.setattr(workers, "MAX_ABANDONED", 0)

    server = MCPServer("queue", workers=1, tool_timeout=1.0)
    running = threading.Event()
    stopped_early: list[bool] = []

    @server.tool()
    def hold(ctx: Context) -> str:
        """Hold the only worker until cancelled (at most 8 s)."""
        running.set()
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and not ctx.is_cancelled():
            time.sleep(0.01)
        stopped_early.append(time.monotonic() < deadline)
        return "released"

    @server.tool()
    def add(a: float, b: float) -> float:
        """Quick."""
        return a + b

    with serve(server) as base:
        holder = threading.Thread(target=rpc, args=(base, "tools/call", {"name": "hold", "arguments": {}}))
        holder.start()
        assert running.wait(5)
        queued = rpc(base, "tools/call", {"name": "hold", "arguments": {}})
        holder.join(15)
        assert queued["isError"] is True
        assert "'hold' could not start within 1 s: every worker was busy" in queued["content"][0]["text"]
        wait_until = time.monotonic() + 10
        while not stopped_early and time.monotonic() < wait_until:
            time.sleep(0.01)
        assert stopped_early == [True]  # the holder's own timeout cancelled it, well before 8 s
        assert rpc(base, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})["content"][0]["text"] == "3.0"
