"""Progress notifications of an ``@async_tool`` call stop once the call answered with its job handle:
the request is no longer in progress, and a notification may only reference the token of one that
is (MCP 2025-11-25, Basic § Utilities § Progress). The job's progress stays polled
(``get_job_result``'s ``progress``). A direct call's progress still arrives before its result, and a
2025-11-25 task's goes on until the task ends: its token "remains valid throughout the task
lifetime" (Basic § Utilities § Tasks, Task Progress Notifications).

Found by a fresh-user trial (trial 18, F4): after the handle, ``notifications/progress`` with the
finished request's token kept arriving on the session's GET stream (the official client dropped
them without a word); jobs.md said they stop. A real server and the official ``mcp`` client; the
task through raw Streamable HTTP (the official client has no tasks API).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from job_server import wait_until
from scaleout.wire import headers, initialize, open_get
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

STEPS = 5


class Gates:
    """What the test lets the job do: ``report`` (its steps, then a log line marking the end of
    them on the session's GET stream), then ``finish``."""

    def __init__(self) -> None:
        self.report = threading.Event()
        self.finish = threading.Event()

    def open_all(self) -> None:
        self.report.set()
        self.finish.set()


def build(gates: Gates) -> MCPServer:
    server = MCPServer("progress-after-the-handle", job_store="memory")

    @server.async_tool()
    def sweep(steps: int, ctx: Context) -> int:
        """Reports each step once the test lets it, then waits to be let finish."""
        gates.report.wait(30)
        for step in range(1, steps + 1):
            ctx.report_progress(step, steps, f"step {step}")
        ctx.info("all steps reported")
        gates.finish.wait(30)
        return steps

    @server.tool()
    def direct(steps: int, ctx: Context) -> int:
        """Reports each step before it answers."""
        for step in range(1, steps + 1):
            ctx.report_progress(step, steps)
        return steps

    return server


@pytest.fixture
def served() -> Iterator[tuple[str, Gates]]:
    gates = Gates()
    try:
        with serve(build(gates)) as url:
            yield url, gates
    finally:
        gates.open_all()


@pytest.mark.anyio
async def test_no_progress_reaches_the_client_after_the_job_handle(served: tuple[str, Gates]) -> None:
    url, gates = served
    seen: list[tuple[str, Any]] = []  # every progress and log notification, in order of arrival

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) in ("notifications/progress", "notifications/message"):
            seen.append((root.method, root.params))

    called_back: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        called_back.append(progress)

    async with mcp_client(url + "mcp", message_handler=on_message) as client:
        await client.set_logging_level("info")
        handle = await client.call_tool("sweep", {"steps": STEPS}, progress_callback=on_progress)
        job_id = handle.structured_content["job_id"]
        gates.report.set()
        with anyio.fail_after(30):  # the log line comes after every step on the GET stream
            while not any(method == "notifications/message" for method, _ in seen):
                await anyio.sleep(0.02)
        assert [params for method, params in seen if method == "notifications/progress"] == []
        polled = (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content
        assert polled == {
            "status": "running",
            "job_id": job_id,
            "progress": {"progress": STEPS, "total": STEPS, "message": f"step {STEPS}"},
        }
        gates.finish.set()
        with anyio.fail_after(30):
            while (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content[
                "status"
            ] == "running":
                await anyio.sleep(0.02)

        answered = await client.call_tool("direct", {"steps": 3}, progress_callback=on_progress)
        assert answered.content[0].text == "3"
        assert called_back == [1, 2, 3]  # a request in progress gets its notifications, before its result


def test_a_tasks_progress_goes_on_until_the_task_ends(served: tuple[str, Gates]) -> None:
    import httpx2 as httpx

    url, gates = served
    endpoint = url + "mcp"
    session = initialize(endpoint)
    stream = open_get(endpoint, session)
    try:
        params = {"name": "sweep", "arguments": {"steps": STEPS}, "task": {"ttl": 60000}, "_meta": {"progressToken": 7}}
        created = httpx.post(
            endpoint,
            headers={**headers(session), "Accept": "application/json"},
            timeout=30,
            json={"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params},
        ).json()
        task_id = created["result"]["task"]["taskId"]
        gates.report.set()
        progress = []
        while len(progress) < STEPS:
            _, message = stream.next(30)
            assert message is not None, "the GET stream ended"
            if message.get("method") == "notifications/progress":
                progress.append(message["params"])
        assert progress == [
            {"progressToken": 7, "progress": step, "total": STEPS, "message": f"step {step}"}
            for step in range(1, STEPS + 1)
        ]
        gates.finish.set()

        def status() -> str:
            reply = httpx.post(
                endpoint,
                headers={**headers(session), "Accept": "application/json"},
                timeout=30,
                json={"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"taskId": task_id}},
            )
            return str(reply.json()["result"]["status"])

        wait_until(lambda: status() == "completed", "the task's end")
    finally:
        stream.close()
