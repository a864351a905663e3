"""With ``inline_quick_calls`` on, the worker pool's inline lane runs a sync function on the event loop only for
arguments it already answered quickly, and each tool, prompt, resource and completer qualifies alone (trial79 F1, F1b).

A function's run time depends on its arguments. The lane used to run a sync function on the loop once its last
``INLINE_AFTER`` pool calls were quick, whatever it was then given: ``sleepy(s=0)`` ten times, then
``sleepy(s=10)`` ran ten seconds on the loop (every client frozen, ``tool_timeout`` not applied, nothing logged).
Every completer shared one key, so a quick completer brought a blocking one onto the loop. Now a call runs there
only for arguments (a canonical fingerprint of their JSON) its function answered quickly before; new arguments go to
the pool, within ``tool_timeout``, and join the function's set there when they are quick.

The blocking calls here wait on an event the test sets, never on a clock: on the loop (before) another client's
``ping`` cannot be answered until then.
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
from nanohubmcp.server.calls.invoke import NOT_INLINE, call_inline, same_json
from nanohubmcp.server.calls.quick_arguments import MAX_FINGERPRINT_BYTES, MAX_REMEMBERED, fingerprint
from nanohubmcp.server.calls.workers import INLINE_AFTER, WorkerPool

pytestmark = pytest.mark.timeout(120)

LIMIT = 2
"""The server's tool_timeout (seconds)."""
REF = types.PromptReference(type="ref/prompt", name="pick")


class App:
    """A server whose functions answer at once for ``0`` / ``""`` and block on :attr:`release` otherwise."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.server = server = MCPServer("by-arguments", provenance=False, tool_timeout=LIMIT, inline_quick_calls=True)

        def blocks_for(given: str) -> str:
            if given not in ("0", ""):
                self.started.set()
                self.release.wait(60)
            return threading.current_thread().name

        @server.tool()
        def sleepy(s: float) -> str:
            """The thread running this call; blocks when ``s`` is not 0."""
            return blocks_for("0" if s == 0 else "1")

        @server.tool()
        def ping() -> str:
            """Pong."""
            return "pong"

        @server.prompt()
        def pr(s: str) -> str:
            """The thread running this call; blocks when ``s`` is not "0"."""
            return blocks_for(s)

        @server.prompt()
        def pick(fast: str = "", slow: str = "") -> str:
            """A prompt whose arguments have completers."""
            return "picked"

        @server.completion(argument="fast", prompt="pick")
        def fast(value: str) -> list[str]:
            return [threading.current_thread().name]

        @server.completion(argument="slow", prompt="pick")
        def slow(value: str) -> list[str]:
            self.started.set()
            self.release.wait(60)
            return ["late"]


@pytest.fixture
def app() -> Iterator[App]:
    app = App()
    with serve(app.server):
        try:
            yield app
        finally:
            app.release.set()  # (a call blocked on the loop would hold the server's stop)


def on_the_loop(thread: str) -> bool:
    return not thread.startswith("nanohubmcp-worker")


async def until_on_the_loop(quick: Callable[[], Awaitable[str]]) -> None:
    """Make quick calls until one ran on the event loop (``INLINE_AFTER`` quick pool calls in a row; a few
    more when the host made one slow)."""
    for _ in range(INLINE_AFTER * 20):
        if on_the_loop(await quick()):
            return
    pytest.fail("the quick function never came to the event loop")


async def ping_while_blocked(app: App, other: Any, blocked: Awaitable[Any]) -> tuple[bool, Any]:
    """Start ``blocked``; once its function blocks, ``other`` client pings. Returns whether the ping was answered
    while the function blocked (on the loop it could not be until the test released it) and what ``blocked`` ended
    with, the function still blocked when the ping was answered (a value or an error)."""
    task = asyncio.ensure_future(blocked)
    try:
        assert await asyncio.to_thread(app.started.wait, 30), "the blocking call did not start"
        pinging = asyncio.ensure_future(other.call_tool("ping", {}))
        answered, _ = await asyncio.wait({pinging}, timeout=20)  # (not cancelled: its answer comes once released)
        if not answered:  # held by the call on the loop: let it end
            app.release.set()
        assert (await pinging).content[0].text == "pong"
        return bool(answered), (await asyncio.gather(task, return_exceptions=True))[0]  # (on the pool: its limit)
    finally:
        app.release.set()
        await asyncio.gather(task, return_exceptions=True)


def test_a_quick_tool_given_slow_arguments_runs_on_the_pool_within_tool_timeout(app: App) -> None:
    async def go() -> tuple[bool, Any]:
        async with mcp_client(f"{app.server.url}mcp") as a, mcp_client(f"{app.server.url}mcp") as b:

            async def quick() -> str:
                return str((await a.call_tool("sleepy", {"s": 0})).content[0].text)

            await until_on_the_loop(quick)
            assert on_the_loop(await quick())  # the same arguments: on the loop still
            return await ping_while_blocked(app, b, a.call_tool("sleepy", {"s": 10}))

    answered, ended = asyncio.run(go())
    assert answered, "another client's ping waited for the call: it ran on the event loop"
    assert ended.is_error, ended  # before: "slept", after its whole run, on the loop
    assert f"tool 'sleepy' did not finish within {LIMIT} s (tool_timeout)" in ended.content[0].text


def test_a_quick_prompt_given_slow_arguments_runs_on_the_pool(app: App) -> None:
    async def go() -> tuple[bool, Any]:
        async with mcp_client(f"{app.server.url}mcp") as a, mcp_client(f"{app.server.url}mcp") as b:

            async def quick() -> str:
                return str((await a.get_prompt("pr", {"s": "0"})).messages[0].content.text)  # type: ignore[union-attr]

            await until_on_the_loop(quick)
            return await ping_while_blocked(app, b, a.get_prompt("pr", {"s": "10"}))

    answered, ended = asyncio.run(go())
    assert answered, "another client's ping waited for the call: it ran on the event loop"
    assert isinstance(ended, MCPError), ended  # its time limit; before: answered after its run, on the loop


def test_a_slow_completer_after_quick_ones_of_another_runs_on_the_pool(app: App) -> None:
    async def go() -> tuple[bool, Any]:
        async with mcp_client(f"{app.server.url}mcp") as a, mcp_client(f"{app.server.url}mcp") as b:

            async def quick() -> str:
                return (await a.complete(REF, {"name": "fast", "value": ""})).completion.values[0]

            await until_on_the_loop(quick)
            # the same value the quick completer answered on the loop: another completer, another key
            return await ping_while_blocked(app, b, a.complete(REF, {"name": "slow", "value": ""}))

    answered, ended = asyncio.run(go())
    assert answered, "another client's ping waited for the call: it ran on the event loop"
    assert isinstance(ended, MCPError), ended  # its time limit; before: answered after its run, on the loop


def quick_pool(key: str, *argument_sets: dict[str, Any]) -> WorkerPool:
    """A pool that ran quick calls of ``key`` with each of ``argument_sets`` until it qualified for the loop."""
    pool = WorkerPool(2, name="by-arguments-test", inline=True)
    for _ in range(INLINE_AFTER * 20):
        for arguments in argument_sets:
            pool.submit_call(lambda: 1, key, arguments).result(10)
        if key in pool.inline_keys:
            return pool
    pool.shutdown()
    pytest.fail("the quick function never qualified for the loop")


def test_only_arguments_answered_quickly_run_on_the_loop_and_a_slow_inline_call_forgets_them() -> None:
    pool = quick_pool("f", {"n": 1, "m": [1, 2]})
    try:
        known = pool.inline_keys["f"]
        assert known.holds({"m": [1, 2], "n": 1})  # the same arguments, in another order
        assert not known.holds({"n": 2, "m": [1, 2]})  # new ones: the pool first
        pool.submit_call(lambda: 1, "f", {"n": 2, "m": [1, 2]}).result(10)
        assert known.holds({"n": 2, "m": [1, 2]})  # quick there: they join
        pool.too_slow_inline("f")
        assert "f" not in pool.inline_keys
        assert not known.holds({"n": 1, "m": [1, 2]})
    finally:
        pool.shutdown()


def test_arguments_remembered_are_bounded() -> None:
    assert fingerprint({"text": "x" * MAX_FINGERPRINT_BYTES}) is None  # too long to remember: never on the loop
    assert fingerprint({"values": list(range(10**6))}) is None  # (told without writing it out)
    assert fingerprint({"when": object()}) is None  # no JSON value
    assert fingerprint({"b": 1, "a": [True, None, 1.5, "é"]}) == fingerprint({"a": [True, None, 1.5, "é"], "b": 1})
    pool = quick_pool("g", {"n": -1})
    try:
        for n in range(MAX_REMEMBERED + 1):
            pool.submit_call(lambda: 1, "g", {"n": n}).result(10)
        known = pool.inline_keys["g"]
        assert known.holds({"n": MAX_REMEMBERED})
        assert not known.holds({"n": 0})  # the least recently seen is forgotten
        big = {"text": "x" * MAX_FINGERPRINT_BYTES}
        pool.submit_call(lambda: 1, "g", big).result(10)
        assert not known.holds(big)
    finally:
        pool.shutdown()


def test_arguments_equal_in_python_but_not_in_json_are_new_arguments() -> None:
    """trial80 F9: ``{"x": 1} == {"x": True} == {"x": 1.0}`` in Python; three JSON texts a function may answer
    differently. The loop's first test compared with ``==``: after ten quick ``x=1``, ``x=true`` ran on the loop."""
    pool = quick_pool("flag", {"x": 1, "y": [1]})
    try:
        for other in ({"x": True, "y": [1]}, {"x": 1.0, "y": [1]}, {"x": 1, "y": [True]}):
            assert call_inline(lambda x, y: "on the loop", other, pool, "flag") is NOT_INLINE, other
        assert call_inline(lambda x, y: "on the loop", {"y": [1], "x": 1}, pool, "flag") == "on the loop"
    finally:
        pool.shutdown()
    assert same_json({"a": [1, {"b": None}], "c": "d"}, {"c": "d", "a": [1, {"b": None}]})
    assert not same_json({"a": 0}, {"a": False})
    assert not same_json([1.0], [1])
    assert not same_json({"a": 1}, {"b": 1})
