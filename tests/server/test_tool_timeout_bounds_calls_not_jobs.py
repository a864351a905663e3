"""``tool_timeout`` answers a slow call with a tool error; an ``@async_tool`` job is exempt."""

from __future__ import annotations

import json
import time

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

# Not about a transport: the calls go through the connection seam in memory, sessionless at the
# version a bare POST /mcp gets.
SESSIONLESS = {"session": False, "version": "2025-03-26"}


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

    with in_memory(server, **SESSIONLESS) as client:
        result = client.request("tools/call", {"name": "slow", "arguments": {}})
        assert result["isError"] is True
        assert "did not finish within 0.2 s" in result["content"][0]["text"]
        started = client.request("tools/call", {"name": "slow_job", "arguments": {}})
        handle = json.loads(started["content"][0]["text"])
        deadline = time.monotonic() + 10
        while True:
            status = client.request("tools/call", {"name": "get_job_result", "arguments": {"job_id": handle["job_id"]}})
            state = json.loads(status["content"][0]["text"])
            if state["status"] != "running" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert state == {"status": "done", "job_id": handle["job_id"], "result": "finished"}


def test_a_call_queued_behind_busy_workers_says_so_and_a_timed_out_call_is_told_to_stop() -> None:
    # Regression (fresh-user trial): a call that never got a worker was told it "did not finish",
    # and a timed-out tool never saw ctx.is_cancelled(), so it kept its worker to the end.
    # (With no room to abandon a stuck worker, and a tool the quick lane does not take: one
    # whose call is still running.)
    import threading

    from nanohubmcp import Context

    server = MCPServer("queue", workers=1, tool_timeout=1.0, max_stuck_calls=0)
    running = threading.Event()
    answered = threading.Event()  # the queued call's answer is in: the holder may give its worker back
    stopped_early: list[bool] = []

    @server.tool()
    def hold(ctx: Context) -> str:
        """Hold the only worker until cancelled (at most 8 s)."""
        running.set()
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and not ctx.is_cancelled():
            time.sleep(0.01)
        stopped_early.append(time.monotonic() < deadline)
        # Keep the worker until the queued call is answered: both wait 1 s, the holder's from its own
        # start, so a holder that let go at once could hand its worker to the queued call a moment
        # before that call's wait ran out (ci36: it then ran, and "did not finish").
        answered.wait(10)
        return "released"

    @server.tool()
    def add(a: float, b: float) -> float:
        """Quick."""
        return a + b

    with in_memory(server, **SESSIONLESS) as client:
        holder = threading.Thread(target=client.request, args=("tools/call", {"name": "hold", "arguments": {}}))
        holder.start()
        assert running.wait(5)
        queued = client.request("tools/call", {"name": "hold", "arguments": {}})
        answered.set()
        holder.join(15)
        assert queued["isError"] is True
        assert "'hold' could not start within 1 s: every worker was busy" in queued["content"][0]["text"]
        wait_until = time.monotonic() + 10
        while not stopped_early and time.monotonic() < wait_until:
            time.sleep(0.01)
        assert stopped_early == [True]  # the holder's own timeout cancelled it, well before 8 s
        added = client.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        assert added["content"][0]["text"] == "3.0"
