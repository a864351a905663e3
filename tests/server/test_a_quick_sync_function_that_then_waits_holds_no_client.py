"""By default every sync function runs on a worker thread, within ``tool_timeout``, however quick it was before
(trial80 F1, F2).

The worker pool's inline lane ran a sync function on the event loop once it had answered the same arguments
quickly a few times. Run time depends on more than arguments: ``wait_ready()`` (``event.wait()``) answered ten
times in microseconds, then, the event cleared, waited on the loop itself: every client froze, ``tool_timeout``
was not applied, and the tool that would set the event could never run (a deadlock for good). The same held for a
resource with no arguments, a prompt and a completer. The lane is now an option, ``inline_quick_calls``, off by
default: here the waiting call is answered by ``tool_timeout``'s error, and another client is answered meanwhile.

The functions wait on an event the test sets, never on a clock.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.server.calls.workers import INLINE_AFTER, WorkerPool

pytestmark = pytest.mark.timeout(120)

LIMIT = 2
"""The server's tool_timeout (seconds)."""
QUICK_CALLS = INLINE_AFTER * 2
"""Quick calls made before the one that waits (ten, as in the trial)."""


class Instrument:
    """A default server whose functions wait until :attr:`ready` is set (set at first: they answer at once)."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.ready.set()
        self.waiting = threading.Event()
        self.server = server = MCPServer("instrument", provenance=False, tool_timeout=LIMIT)

        def wait() -> str:
            if not self.ready.is_set():
                self.waiting.set()
            self.ready.wait(60)
            return threading.current_thread().name

        @server.tool()
        def wait_ready() -> str:
            """Wait until the instrument is ready; the thread that waited."""
            return wait()

        @server.resource("instrument://state")
        def state() -> str:
            """The instrument's state, once it is ready."""
            return wait()

        @server.prompt()
        def status(run: str) -> str:
            """A run's status, once the instrument is ready."""
            return wait()

        @server.completion(argument="run", prompt="status")
        def runs(value: str) -> list[str]:
            return [wait()]


@pytest.fixture
def instrument() -> Iterator[Instrument]:
    instrument = Instrument()
    with serve(instrument.server):
        try:
            yield instrument
        finally:
            instrument.ready.set()  # (a call waiting on the loop would hold the server's stop)


class ToolFailed(Exception):
    """A tool's error result (``isError``), raised as the other calls' errors are."""


async def _text_of_tool(client: Any) -> str:
    result = await client.call_tool("wait_ready", {})
    if result.is_error:
        raise ToolFailed(result.content[0].text)
    return str(result.content[0].text)


async def _text_of_resource(client: Any) -> str:
    return str((await client.read_resource("instrument://state")).contents[0].text)


async def _text_of_prompt(client: Any) -> str:
    return str((await client.get_prompt("status", {"run": "7"})).messages[0].content.text)


async def _value_completed(client: Any) -> str:
    reference = types.PromptReference(type="ref/prompt", name="status")
    return str((await client.complete(reference, {"name": "run", "value": ""})).completion.values[0])


CALLS: dict[str, Callable[[Any], Awaitable[str]]] = {
    "tool": _text_of_tool, "resource": _text_of_resource, "prompt": _text_of_prompt, "completer": _value_completed}


@pytest.mark.parametrize("kind", sorted(CALLS))
def test_a_function_quick_ten_times_that_then_waits_is_bounded_and_holds_no_other_client(
        instrument: Instrument, kind: str) -> None:
    call = CALLS[kind]

    async def go() -> tuple[list[str], bool, BaseException | str]:
        async with mcp_client(f"{instrument.server.url}mcp") as a, mcp_client(f"{instrument.server.url}mcp") as b:
            threads = [await call(a) for _ in range(QUICK_CALLS)]
            instrument.ready.clear()
            waiting = asyncio.ensure_future(call(a))
            try:
                assert await asyncio.to_thread(instrument.waiting.wait, 30), "the waiting call did not start"
                pinged = asyncio.ensure_future(b.send_ping())
                answered, _ = await asyncio.wait({pinged}, timeout=20)  # (on the loop: only once the event is set)
                if answered:  # on the pool: its time limit answers it, the event still clear
                    await asyncio.wait({waiting}, timeout=30)
                instrument.ready.set()  # (on the loop: it returns now)
                await pinged
                ended = (await asyncio.gather(waiting, return_exceptions=True))[0]
            finally:
                instrument.ready.set()
                await asyncio.gather(waiting, return_exceptions=True)
            return threads, bool(answered), ended

    threads, answered, ended = asyncio.run(go())
    assert answered, "another client's ping waited for the call: it ran on the event loop"
    assert all(thread.startswith("nanohubmcp-worker") for thread in threads), threads
    assert isinstance(ended, (MCPError, ToolFailed)), ended  # before: its value once the test set the event, after 20 s
    assert "tool_timeout" in str(ended), ended


def test_a_default_pool_lets_no_function_onto_the_loop_and_the_option_is_true_or_false() -> None:
    pool = WorkerPool(2, name="default-test")
    try:
        for _ in range(QUICK_CALLS):
            pool.submit_call(lambda: 1, "quick", {"n": 1}).result(10)
        assert pool.inline_keys == {}
    finally:
        pool.shutdown()
    assert MCPServer("off").core.inline_quick_calls is False
    for wrong in ("true", 1, None):
        with pytest.raises(ConfigurationError, match="inline_quick_calls must be True or False"):
            MCPServer("wrong", inline_quick_calls=wrong)  # type: ignore[arg-type]
