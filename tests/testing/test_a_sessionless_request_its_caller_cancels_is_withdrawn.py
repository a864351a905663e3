"""A ``MemoryClient(session=False)`` speaking a handshake-era version sends each request without
``initialize``, as a plain HTTP POST with an ``MCP-Protocol-Version`` header does. When the caller
cancels one (a cancel scope, the sync client's ``timeout=``) the tool is cancelled at the server, as a
session's request is on ``notifications/cancelled`` and an HTTP request is when its client goes away.
Before, no session held the request, the client's ``notifications/cancelled`` named nothing, and the tool
ran on with its reply dropped (testing2 notes, the F1 caveat).

The tools wait on an event only the request's cancellation sets; the bounded waits below only end a
test that would otherwise hang on the old behaviour.
"""

from __future__ import annotations

import asyncio
import threading

import anyio
import pytest

from nanohubmcp import Context, MCPServer
from nanohubmcp.testing import MemoryClient, in_memory

pytestmark = pytest.mark.timeout(60)

VERSIONS = ["2025-11-25", "2025-03-26", "2024-11-05"]


class Probe:
    """What the tools report: started, and how they ended."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.ended = threading.Event()
        self.outcome: list[str] = []
        self.cancelled: threading.Event | None = None
        """The running call's cancellation flag (``ctx.cancel_event``)."""

    def end(self, outcome: str) -> None:
        self.outcome.append(outcome)
        self.ended.set()


def build() -> tuple[MCPServer, Probe]:
    server = MCPServer("holder")
    probe = Probe()

    @server.tool()
    async def hold(ctx: Context) -> str:
        """Wait on an event only the request's cancellation sets; say how the wait ended."""
        woken = asyncio.Event()
        ctx.on_cancel(woken.set)
        probe.started.set()
        try:
            await woken.wait()
        except asyncio.CancelledError:  # the client's cancel cancels the coroutine too (trial73 F7)
            probe.end(f"cancelled (CancelledError, ctx.is_cancelled() = {ctx.is_cancelled()})")
            raise
        probe.end(f"woken (ctx.is_cancelled() = {ctx.is_cancelled()})")
        return "woken"

    @server.tool()
    def hold_in_a_thread(ctx: Context) -> str:
        """The same on a worker thread: wait for the request's cancellation."""
        probe.cancelled = ctx.cancel_event
        probe.started.set()
        probe.end("cancelled" if ctx.cancel_event.wait(30) else "ran to its end")
        return "released"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server, probe


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_a_cancelled_sessionless_call_cancels_the_tool(version: str) -> None:
    server, probe = build()
    async with MemoryClient(server, version=version, session=False) as client:
        assert client.session_id is None
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "hold")
            with anyio.fail_after(10):  # bounds only a tool that never starts
                while not probe.started.is_set():
                    await anyio.sleep(0.01)
            group.cancel_scope.cancel()  # the caller gives up on the call
        ended = await anyio.to_thread.run_sync(probe.ended.wait, 10)
        assert ended, "the tool was not cancelled: it is still waiting"
        assert probe.outcome == ["cancelled (CancelledError, ctx.is_cancelled() = True)"]
        # the client and the server go on serving
        assert (await client.call_tool("add", {"a": 1, "b": 2}))["content"][0]["text"] == "3"


@pytest.mark.parametrize("version", VERSIONS)
def test_a_sessionless_call_that_times_out_cancels_the_tool(version: str) -> None:
    server, probe = build()
    with in_memory(server, version=version, session=False) as client:
        with pytest.raises(TimeoutError, match=r"^tools/call 'hold_in_a_thread' got no answer within 0.3 s"):
            client.call_tool("hold_in_a_thread", timeout=0.3)
        assert probe.ended.wait(10), "the tool was not cancelled: it is still waiting"
        assert probe.outcome == ["cancelled"]
        assert client.call_tool("add", {"a": 1, "b": 2})["content"][0]["text"] == "3"


@pytest.mark.anyio
@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("request_id", [True, [1], {"id": 1}, 1.0])
async def test_a_cancellation_naming_no_request_id_withdraws_nothing(version: str, request_id: object) -> None:
    server, probe = build()
    async with MemoryClient(server, version=version, session=False) as client:
        message = client.envelope("tools/call", {"name": "hold_in_a_thread", "arguments": {}})
        assert message["id"] == 1
        answers: list[object] = []

        async def call() -> None:
            answers.append(await client.send(message))

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            with anyio.fail_after(10):
                while probe.cancelled is None:
                    await anyio.sleep(0.01)
            # true == 1 in Python, 1.0 is no JSON-RPC id, a list or an object cannot be a key: none names request 1
            await client.notify("notifications/cancelled", {"requestId": request_id})
            assert not probe.cancelled.is_set()
            await client.notify("notifications/cancelled", {"requestId": 1})  # this one does
            assert probe.cancelled.is_set()
        assert answers == [None]  # withdrawn: no answer owed
