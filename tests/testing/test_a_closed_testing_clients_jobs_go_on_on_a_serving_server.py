"""The jobs a testing client started on a server that serves (``server.start()``) go on once the client closed, and
are read over HTTP afterwards: a Dask job (its task on the cluster was waited for on the client's event loop, and
failed with "the testing client that started this job closed while it ran" when ``in_memory``'s block ended), and
the jobs of an ``async with MemoryClient`` whose loop ends with ``asyncio.run`` (a thread job read ``cancelled``
while its function ran on; a Dask job was cancelled on the cluster; an HTTP client's ``tasks/result`` waiting for a
job that ran on that loop got no answer) or goes on (an ``async def`` tool's job failed as the block ended). A
client whose exit is cancelled still ends its session.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support import post_rpc, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import MemoryClient, in_memory

pytestmark = pytest.mark.timeout(180)


def when_told(marker: str) -> str:
    """Wait until ``marker`` exists (at most a minute), then answer."""
    deadline = time.monotonic() + 60
    while not Path(marker).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "told" if Path(marker).exists() else "never told"


def ended(url: str, job: str) -> dict[str, Any]:
    """``get_job_result`` over HTTP once the job is no longer running."""
    deadline = time.monotonic() + 60
    while True:
        answer = post_rpc(url, "tools/call", {"name": "get_job_result", "arguments": {"job_id": job}})
        polled: dict[str, Any] = json.loads(answer["result"]["content"][0]["text"])
        if polled["status"] != "running" or time.monotonic() > deadline:
            return polled
        time.sleep(0.05)


async def start_job(server: MCPServer, tool: str, arguments: dict[str, Any], running: threading.Event | None) -> str:
    async with MemoryClient(server) as client:
        job: str = (await client.call_tool(tool, arguments))["structuredContent"]["job_id"]
        if running is not None:
            assert await asyncio.to_thread(running.wait, 30)
    return job


def holding(name: str) -> tuple[MCPServer, threading.Event, threading.Event]:
    """A server with a thread tool ``hold``: sets the first event once it runs, returns once the second is set."""
    server = MCPServer(name)
    running, release = threading.Event(), threading.Event()

    @server.async_tool()
    def hold() -> str:
        """Run until the test releases it."""
        running.set()
        return "released" if release.wait(30) else "never released"
    return server, running, release


def test_a_dask_job_goes_on_after_its_testing_client_closed(tmp_path: Path) -> None:
    server = MCPServer("dask-after-client", state_dir=str(tmp_path / "state"), job_executor="dask")  # its LocalCluster
    server.async_tool()(when_told)
    go = tmp_path / "go"
    with serve(server) as url:
        with in_memory(server) as client:
            first = client.call_tool("when_told", {"marker": str(go)})["structuredContent"]["job_id"]
        second = asyncio.run(start_job(server, "when_told", {"marker": str(go)}, None))
        go.write_text("go")
        assert ended(url, first) == {"status": "done", "job_id": first, "result": "told"}
        assert ended(url, second) == {"status": "done", "job_id": second, "result": "told"}


def test_a_thread_job_of_a_memory_client_whose_loop_ended_stores_its_end() -> None:
    server, running, release = holding("thread-after-loop")

    with serve(server) as url:
        job = asyncio.run(start_job(server, "hold", {}, running))
        release.set()
        assert ended(url, job) == {"status": "done", "job_id": job, "result": "released"}


def test_an_async_job_of_a_memory_client_whose_loop_goes_on_ends_done() -> None:
    # A notebook cell's top-level `async with MemoryClient(server)`, a long-lived application's loop: the loop
    # goes on after the block, and so does the job of an async def tool, which runs on it (it failed with
    # "closed while it ran" as the block ended).
    server = MCPServer("async-after-client")
    release = threading.Event()

    @server.async_tool()
    async def gate() -> str:
        """Wait on the client's loop until the test releases it."""
        return "released" if await asyncio.to_thread(release.wait, 30) else "never released"

    async def start_then_read(url: str) -> dict[str, Any]:
        job = await start_job(server, "gate", {}, None)
        release.set()
        return await asyncio.to_thread(ended, url, job)

    with serve(server) as url:
        polled = asyncio.run(start_then_read(url))
    assert polled == {"status": "done", "job_id": polled["job_id"], "result": "released"}


def test_a_memory_client_whose_exit_is_cancelled_still_ends_its_session() -> None:
    # The caller's deadline ends while __aexit__ waits for the tasks of the jobs it hands over: the session
    # still ends (it stayed on the server).
    server, running, release = holding("cancelled-exit")

    async def cancelled_during_exit() -> bool:
        try:
            async with MemoryClient(server) as client:
                await client.call_tool("hold", {})
                assert await asyncio.to_thread(running.wait, 30)
                assert len(server.core.sessions) == 1
                this = asyncio.current_task()
                assert this is not None
                this.cancel()  # delivered at __aexit__'s first wait, as a deadline's is
        except asyncio.CancelledError:
            return True
        return False

    with serve(server):
        try:
            assert asyncio.run(cancelled_during_exit())
            assert len(server.core.sessions) == 0
        finally:
            release.set()


def test_an_http_waiter_of_a_job_that_ended_with_its_clients_loop_is_answered() -> None:
    # An async def tool's job runs on the client's loop: it fails when that loop ends (asyncio.run returns), and
    # tasks/result, waiting over HTTP on the server's loop (a sessionless task: read by its id), is answered.
    server = MCPServer("waiter-after-loop")

    @server.async_tool()
    async def nap() -> str:
        """Sleep on the client's loop."""
        await asyncio.sleep(60)
        return "slept"

    answers: list[dict[str, Any]] = []
    headers = {"MCP-Protocol-Version": "2025-11-25"}

    async def start_and_close(url: str) -> None:
        async with MemoryClient(server, session=False) as client:
            task = (await client.request("tools/call", {"name": "nap", "arguments": {}, "task": {"ttl": 60000}}))
            waiter = threading.Thread(target=lambda: answers.append(
                post_rpc(url, "tasks/result", {"taskId": task["task"]["taskId"]}, headers=headers, timeout=20)))
            waiters.append(waiter)
            waiter.start()
            while not server.core.shutdown.running:  # until the waiter's request is being served
                await asyncio.sleep(0.01)

    waiters: list[threading.Thread] = []
    with serve(server) as url:
        asyncio.run(start_and_close(url))
        waiters[0].join(30)
    assert len(answers) == 1, answers
    assert "closed while it ran" in json.dumps(answers[0]), answers
