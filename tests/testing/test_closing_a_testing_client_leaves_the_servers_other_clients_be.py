"""Closing a ``nanohubmcp.testing`` client of a serving server ends its own session only: the sessions of the
server's HTTP clients (Streamable HTTP and legacy SSE), the calls they have running and the change
notifications they get go on. Found by a fresh-user trial (trial46 T46-8): after ``with in_memory(server) as c:
...`` every HTTP client's next request got 404 "Session not found" (the block's end closed the server's core,
as ``server.stop()`` does).
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import anyio
import pytest
from support import mcp_client, post_rpc, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]


def build() -> tuple[MCPServer, threading.Event, threading.Event]:
    server = MCPServer("shared-lab")
    started = threading.Event()
    release = threading.Event()

    @server.async_tool()
    def hold_job() -> str:
        """A job that runs until the test releases it."""
        return "released" if release.wait(30) else "never released"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def hold() -> str:
        """Run until the test releases it."""
        started.set()
        return "released" if release.wait(30) else "never released"

    return server, started, release


async def added(session: Any) -> str:
    with anyio.fail_after(10):
        result = await session.call_tool("add", {"a": 2, "b": 2})
    assert not result.is_error, result
    text: str = result.content[0].text
    return text


def use_in_memory(server: MCPServer) -> None:
    with in_memory(server) as client:
        assert client.call_tool("add", {"a": 1, "b": 2})["content"][0]["text"] == "3"
    with pytest.raises(RuntimeError, match="closed"):
        client.list_tools()


async def test_the_http_sessions_and_their_running_calls_outlive_an_in_memory_client() -> None:
    server, started, release = build()
    with serve(server) as url:
        async with mcp_client(url + "mcp") as modern, mcp_client(url + "sse", transport="sse") as legacy, \
                anyio.create_task_group() as group:
            assert await added(modern) == "4"
            assert await added(legacy) == "4"
            held: list[Any] = []

            async def call_hold() -> None:
                held.append(await modern.call_tool("hold", {}))

            group.start_soon(call_hold)
            assert await anyio.to_thread.run_sync(started.wait, 30)

            await anyio.to_thread.run_sync(use_in_memory, server)

            assert await added(modern) == "4"
            assert await added(legacy) == "4"
            release.set()
            with anyio.fail_after(30):
                while not held:
                    await anyio.sleep(0.01)
            assert held[0].content[0].text == "released", held


async def test_a_server_started_while_a_client_is_open_serves_on_after_it_closes() -> None:
    # The client's first request attached the core to the client's loop; the start moves it to the runner's.
    # Closing the client must neither detach the runner's loop (no more change notifications) nor close the core.
    server, _, _ = build()
    ready = threading.Event()
    go = threading.Event()
    failed: list[BaseException] = []

    def client_then_start() -> None:
        try:
            with in_memory(server) as client:
                assert client.call_tool("add", {"a": 1, "b": 2})["content"][0]["text"] == "3"
                server.start(host="127.0.0.1", port=0)
                ready.set()
                assert go.wait(30)
        except BaseException as exc:  # seen by the test, not lost in the thread
            failed.append(exc)
            ready.set()

    changes: list[Any] = []

    async def on_message(message: Any) -> None:
        if "list_changed" in repr(message):
            changes.append(message)

    thread = threading.Thread(target=client_then_start)
    thread.start()
    try:
        assert await anyio.to_thread.run_sync(ready.wait, 30)
        assert not failed, failed
        assert server.url is not None
        async with mcp_client(server.url + "mcp", message_handler=on_message) as modern:
            assert await added(modern) == "4"
            go.set()
            await anyio.to_thread.run_sync(thread.join, 30)
            assert not failed, failed

            @server.tool()  # before any request: one would attach a detached core to the runner's loop again
            def subtract(a: int, b: int) -> int:
                """Subtract."""
                return a - b

            with anyio.fail_after(10):
                while not changes:
                    await modern.send_ping()  # anything sent before its answer has arrived
            assert await added(modern) == "4"
            assert "subtract" in [tool.name for tool in (await modern.list_tools()).tools]
    finally:
        go.set()
        thread.join(30)
        server.stop()



def test_a_job_the_client_started_ends_and_is_stored_after_the_client_closed() -> None:
    # The client's requests, and the tasks following its jobs, ran on the client's loop, which ends with the block:
    # a job whose function still runs on a thread goes on, and its end is stored (read by its id, its session gone).
    server, _, release = build()
    with serve(server) as url:
        with in_memory(server) as client:
            job = client.call_tool("hold_job")["structuredContent"]["job_id"]
        release.set()
        deadline = time.monotonic() + 30
        while True:
            answer = post_rpc(url, "tools/call", {"name": "get_job_result", "arguments": {"job_id": job}})
            polled = json.loads(answer["result"]["content"][0]["text"])
            if polled["status"] != "running" or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        assert polled["status"] == "done", polled
        assert polled["result"] == "released"
