"""In the 2026-07-28 era there is no notifications/cancelled over HTTP: the client closes the
request's response stream (or connection) and the function sees ``ctx.is_cancelled()``."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from modern_wire import Wire
from support import serve

from nanohubmcp import Context, MCPServer

SEEN: dict[str, threading.Event] = {}
RUNNING: dict[str, threading.Event] = {}  # set by sync_wait once it runs, for tags a test registered


def build() -> MCPServer:
    server = MCPServer("cancellable")

    @server.tool()
    def sync_wait(ctx: Context, tag: str) -> str:
        """Report progress, then wait (at most 10 s) until cancelled."""
        if tag in RUNNING:
            RUNNING[tag].set()
        ctx.report_progress(1, 10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if ctx.is_cancelled():
                SEEN[tag].set()
                return "cancelled"
            time.sleep(0.02)
        return "never cancelled"

    @server.tool()
    async def async_wait(ctx: Context, tag: str) -> str:
        """The same on the event loop."""
        ctx.report_progress(1, 10)
        try:
            for _ in range(500):
                if ctx.is_cancelled():
                    SEEN[tag].set()
                    return "cancelled"
                await asyncio.sleep(0.02)
        except asyncio.CancelledError:  # the closed stream, its client's cancel, cancels the coroutine (trial73 F7)
            SEEN[tag].set()
            raise
        return "never cancelled"

    @server.tool()
    def quick(ctx: Context) -> str:
        """Answer at once."""
        return "cancelled" if ctx.is_cancelled() else "fine"

    return server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(build()) as base:
        yield base + "mcp"


@pytest.mark.parametrize("tool", ["sync_wait", "async_wait"])
def test_closing_an_sse_response_cancels_the_call(url: str, tool: str) -> None:
    tag = f"sse-{tool}"
    SEEN[tag] = threading.Event()
    stream = Wire(url).listen("tools/call", {"name": tool, "arguments": {"tag": tag},
                                             "_meta": {"progressToken": "p1"}})
    first = stream.next(timeout=5)
    assert first is not None
    assert first["method"] == "notifications/progress"
    stream.close()
    assert SEEN[tag].wait(5), "the tool never saw the cancellation"


def test_closing_the_connection_of_a_json_answered_call_cancels_it(url: str) -> None:
    tag = "json-sync"
    SEEN[tag], RUNNING[tag] = threading.Event(), threading.Event()
    wire = Wire(url)
    body, headers = wire.build("tools/call", {"name": "sync_wait", "arguments": {"tag": tag}},
                               accept="application/json")
    parts = urlsplit(url)
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n{head}"
                     f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        assert RUNNING[tag].wait(10), "the call never started"  # it runs: hang up before it answers
    assert SEEN[tag].wait(5), "the tool never saw the cancellation"


def test_a_finished_call_is_not_cancelled_and_its_answer_arrives(url: str) -> None:
    reply = Wire(url).call("tools/call", {"name": "quick"})
    assert reply.result["content"][0]["text"] == "fine"
    assert json.dumps(reply.result)  # a whole, parseable answer
