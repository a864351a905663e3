"""A ``nanohubmcp.testing`` client whose call is cancelled, timed out, or used after its block.

The server is a real ``MCPServer`` whose ``hold`` tool runs until its request is cancelled (then it
says so); the deadlines below only bound a call that never ends by itself. Trial 20 F1, F2, F3.
"""

from __future__ import annotations

import threading
import warnings

import anyio
import pytest

from nanohubmcp import Context, MCPServer
from nanohubmcp.testing import MemoryClient, in_memory

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def build() -> tuple[MCPServer, threading.Semaphore]:
    server = MCPServer("holder")
    cancelled = threading.Semaphore(0)

    @server.tool()
    def hold(ctx: Context) -> str:
        """Run until the request is cancelled."""
        if ctx.cancel_event.wait(30):
            cancelled.release()
            return "cancelled"
        return "never cancelled"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server, cancelled


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
async def test_fail_after_and_move_on_after_cancel_the_request_at_the_server(version: str) -> None:
    server, cancelled = build()
    async with MemoryClient(server, version=version) as client:
        with pytest.raises(TimeoutError):
            with anyio.fail_after(0.2):
                await client.call_tool("hold")
        assert await anyio.to_thread.run_sync(cancelled.acquire, True, 30), "the tool was never cancelled"

        with anyio.move_on_after(0.2) as scope:
            await client.call_tool("hold")
        assert scope.cancelled_caught
        assert await anyio.to_thread.run_sync(cancelled.acquire, True, 30), "the tool was never cancelled"

        assert (await client.call_tool("add", {"a": 1, "b": 2}))["content"][0]["text"] == "3"


def test_the_sync_timeout_says_what_timed_out_and_cancels_it(capfd: pytest.CaptureFixture[str]) -> None:
    server, cancelled = build()
    with in_memory(server, timeout=20) as client:
        with pytest.raises(TimeoutError, match=r"^tools/call 'hold' got no answer within 0.2 s"):
            client.call_tool("hold", timeout=0.2)
        assert cancelled.acquire(timeout=30), "the tool was never cancelled"
        assert client.call_tool("add", {"a": 1, "b": 2})["content"][0]["text"] == "3"
    assert "never retrieved" not in capfd.readouterr().err


async def test_an_async_client_is_closed_after_its_block() -> None:
    server, _ = build()
    async with MemoryClient(server) as client:
        pass
    with pytest.raises(RuntimeError, match="the client is closed"):
        await client.call_tool("add", {"a": 1, "b": 2})


def test_a_sync_client_is_closed_after_its_block() -> None:
    server, _ = build()
    with in_memory(server) as client:
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "coroutine ... was never awaited"
        with pytest.raises(RuntimeError, match="the client is closed"):
            client.list_tools()


def test_a_bad_timeout_leaves_no_coroutine_unawaited() -> None:
    """trial69 T69-6: the refusal of ``timeout=-1`` came with ``RuntimeWarning: coroutine
    'MemoryClient.call_tool' was never awaited``."""
    import gc

    server, _ = build()
    with in_memory(server) as client:
        gc.collect()  # what earlier tests in this worker left (an event loop a library never closed) is not this one's
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
                client.call_tool("hold", {}, timeout=-1)
            gc.collect()
        assert [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)] == []
