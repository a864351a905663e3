"""Stopping the server marks every running call cancelled, sessionless ones included, so a tool
that checks ``ctx.is_cancelled()`` ends promptly instead of holding the process open."""

from __future__ import annotations

import json
import threading
import time
import urllib.request

from nanohubmcp import Context, MCPServer


def test_a_running_sessionless_call_sees_the_shutdown() -> None:
    server = MCPServer("stop")
    started = threading.Event()
    saw: list[float] = []

    @server.tool()
    def long_loop(ctx: Context) -> str:
        """Loops until cancelled (at most 10 s)."""
        started.set()
        t0 = time.monotonic()
        while not ctx.is_cancelled() and time.monotonic() - t0 < 10:
            time.sleep(0.02)
        saw.append(time.monotonic() - t0)
        return "stopped"

    server.start(port=0)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "long_loop", "arguments": {}}}).encode()
    request = urllib.request.Request(f"{server.url}mcp", body, {"Content-Type": "application/json"})

    answers: list[dict] = []

    def call() -> None:
        with urllib.request.urlopen(request, timeout=15) as reply:
            answers.append(json.loads(reply.read()))

    caller = threading.Thread(target=call)
    caller.start()
    assert started.wait(10)
    server.stop()
    caller.join(15)
    deadline = time.monotonic() + 10
    while not saw and time.monotonic() < deadline:
        time.sleep(0.05)
    assert saw, saw
    assert saw[0] < 5, saw
    # The call had a moment to answer before the connections closed: the client got its result.
    assert answers
    assert answers[0]["result"]["content"][0]["text"] == "stopped"
