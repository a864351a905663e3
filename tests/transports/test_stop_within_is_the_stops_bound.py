"""``MCPServer.stop(within=N)`` is the stop's bound, both ways (review r29 #1, #2).

- A background server (``start()``) given ``within`` above 10 s waits for its drain: before, the stop joined the
  server thread 10 s at most and forgot it, so a script ending after ``stop(within=20)`` lost a 12 s call's answer.
- A blocking ``run()`` stopped from another thread with ``stop(within=1)`` drains (and waits for its running calls)
  to the earlier of ``within`` and its exit grace: before, it drained to the grace (10 s), ``within`` unread.

Real servers, raw HTTP (``urllib``), a real tool thread."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any

from nanohubmcp import MCPServer

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2025-11-25"}


def _post(url: str, body: dict[str, Any], sid: str | None = None) -> tuple[str | None, str]:
    headers = dict(HEADERS, **({"Mcp-Session-Id": sid} if sid else {}))
    with urllib.request.urlopen(urllib.request.Request(url, json.dumps(body).encode(), headers), timeout=60) as reply:
        return reply.headers.get("Mcp-Session-Id"), reply.read().decode()


def _session(url: str) -> str | None:
    sid, _ = _post(url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    return sid


def _call_in_thread(url: str, sid: str | None, seconds: float, answer: list[tuple[float, str]]) -> threading.Thread:
    def call() -> None:
        try:
            text = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                               "params": {"name": "slow", "arguments": {"seconds": seconds}}}, sid)[1]
        except urllib.error.HTTPError as exc:
            text = f"HTTP {exc.code}"
        except Exception as exc:  # (what the test reports: no answer at all)
            text = repr(exc)
        answer.append((time.monotonic(), text))

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread


def _slow_server(started: threading.Event, release: threading.Event) -> MCPServer:
    server = MCPServer("within")

    @server.tool()
    def slow(seconds: float) -> str:
        """Wait ``seconds`` (or until released)."""
        started.set()
        release.wait(seconds)
        return "done"

    return server


def test_a_background_stop_waits_for_a_call_longer_than_ten_seconds_when_within_allows() -> None:
    started, release = threading.Event(), threading.Event()
    server = _slow_server(started, release)
    server.start(port=0, quiet=True)
    try:
        url = server.mcp_url
        assert url is not None
        answer: list[tuple[float, str]] = []
        call = _call_in_thread(url, _session(url), 12.0, answer)
        assert started.wait(10)
        began = time.monotonic()
        server.stop(within=20)
        returned = time.monotonic()
        assert answer, f"stop(within=20) returned after {returned - began:.1f} s, the 12 s call not answered yet"
        assert '"text":"done"' in answer[0][1], answer
        assert answer[0][0] <= returned
        assert returned - began < 20 + 3
        call.join(10)
    finally:
        release.set()
        server.stop()


def test_a_blocking_run_stopped_from_another_thread_keeps_within() -> None:
    started, release = threading.Event(), threading.Event()
    server = _slow_server(started, release)
    answer: list[tuple[float, str]] = []
    marks: dict[str, float] = {}

    def client() -> None:
        deadline = time.monotonic() + 30
        while server.mcp_url is None and time.monotonic() < deadline:
            time.sleep(0.02)
        url = server.mcp_url
        assert url is not None
        _call_in_thread(url, _session(url), 6.0, answer)
        if started.wait(10):
            marks["stop"] = time.monotonic()
            server.stop(within=1)
        else:
            server.stop()

    helper = threading.Thread(target=client, daemon=True)
    helper.start()
    try:
        server.run(port=0, quiet=True)
        ended = time.monotonic()
    finally:
        release.set()
    helper.join(10)
    assert "stop" in marks
    assert ended - marks["stop"] < 2.5, f"run() returned {ended - marks['stop']:.1f} s after stop(within=1)"
    deadline = time.monotonic() + 10
    while not answer and time.monotonic() < deadline:
        time.sleep(0.02)
    assert answer
    assert answer[0][0] - marks["stop"] < 2.5, answer  # cut off with the stopping server's error
    assert '"text":"done"' not in answer[0][1], answer
