"""A large dict result is written once, on the worker pool, not again on the event loop (review r20 L8).

A dict result's structured content was its JSON text read back as a dict (``to_json``), which the transport
wrote again when it sent the answer: on the event loop, a REST call of a tool returning 400,000 plain
key/value pairs held the loop for about half a second of its CPU (1M pairs: ~5 s), every other client waiting. Its
structured content is now that text (``encoded.Encoded``, as a list's already was), written as it is.

The loop thread's own CPU time is read from ``/proc`` before and after the call.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer

PAIRS = 400_000
TABLE = {f"k{i}": i / 7 for i in range(PAIRS)}

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads a thread's CPU in /proc")


def thread_cpu_seconds(tid: int) -> float:
    fields = Path(f"/proc/self/task/{tid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def build() -> MCPServer:
    server = MCPServer("tables", provenance=False, max_inline_bytes=None)

    @server.tool()
    def table() -> dict:
        """Many plain pairs."""
        return TABLE

    @server.tool()
    async def loop_thread() -> int:
        """The native id of the server's event loop thread."""
        return threading.get_native_id()

    return server


@pytest.mark.parametrize("route", ["rest", "mcp"])
def test_the_loop_does_not_write_a_large_dict_result_again(route: str) -> None:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    with serve(build()) as url, httpx.Client(timeout=120) as client:
        loop = int(client.post(url + "tools/loop_thread", json={}).json()["result"])
        before = thread_cpu_seconds(loop)
        if route == "rest":
            answer = client.post(url + "tools/table", json={}).json()
            data = answer
        else:
            message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "table", "arguments": {}}}
            answer = client.post(url + "mcp", json=message, headers=headers).json()
            data = answer["result"]["structuredContent"]
        spent = thread_cpu_seconds(loop) - before
    assert data == TABLE
    # Before: 0.67 s (REST) and 0.75 s (tools/call) here, the dict written again; now the
    # answer's other bytes, a few hundredths of a second (tools/call, inlined, escapes its text block too).
    assert spent < 0.25, f"the event loop spent {spent:.2f} s of CPU on the call"
