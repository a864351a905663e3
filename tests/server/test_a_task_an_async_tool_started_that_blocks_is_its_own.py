"""A blocking call in a coroutine an ``async def`` tool runs as a task of its own (``asyncio.gather``,
``create_task``, Python 3.11's ``wait_for``) holds the event loop as the tool's own step does: it is logged once at
WARNING naming the tool and the helper, and a call that ended past its ``tool_timeout`` is answered as having held
the loop (review r37 F6). Before, only the tool's own coroutine was timed: nothing was logged, and the answer said
``it ended after the limit (the event loop was held by other work)``, pointing away from the tool's code.

The timing rides on the loop's task factory while a coroutine call runs: a factory the loop had before makes the
tasks still and is the loop's again after the call."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
import time
import warnings
from typing import Any

import pytest
from support import call_tool_http, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.calls.loop_hold import TimedSteps

BLOCK = 1.1  # a step longer than loop_hold.HOLD_SECONDS


async def part(seconds: float) -> float:
    """A helper coroutine that blocks (time.sleep: the mistake)."""
    time.sleep(seconds)
    return seconds


def held_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "in one step (no await)" in r.getMessage()]


def test_gathered_helpers_that_block_are_said_and_answered_as_the_tools_hold(caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("gathers", tool_timeout=1)

    @server.tool()
    async def gathered() -> list[float]:
        """Blocks in two gathered helpers."""
        return list(await asyncio.gather(part(BLOCK), part(BLOCK)))

    @server.tool()
    async def waited() -> float:
        """Blocks in a helper awaited with a time limit of its own."""
        return await asyncio.wait_for(part(BLOCK * 2), 30)

    with caplog.at_level(logging.WARNING, logger="nanohubmcp.tool"), serve(server) as url:
        answers = {name: call_tool_http(url, name, timeout=30) for name in ("gathered", "waited")}
    for name, result in answers.items():
        assert result.get("isError"), result
        text = result["content"][0]["text"]
        assert re.match(rf"tool '{name}' did not finish within 1 s \(tool_timeout\); it held the event loop for "
                        r"2\.\d s \(a blocking call in an async def function\)", text), text  # 2 x 1.1 s, or more
        assert "other work" not in text, text
    said = held_warnings(caplog)
    for name in answers:  # once a call (Python 3.12+'s wait_for runs its coroutine as the tool's own step)
        assert len([line for line in said if line.startswith(f"tool '{name}' held")]) == 1, said
    assert any(re.match(r"tool 'gathered' held the event loop for 1\.\d s in one step \(no await\) of part\(\), "
                        r"a task it started, while other calls waited: ", line) for line in said), said
    assert all("await asyncio.to_thread(...)" in line for line in said), said


def test_a_started_task_that_blocks_is_said_and_the_value_answered_without_a_limit(
        caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("starts")

    @server.tool()
    async def started() -> float:
        """Blocks in a task it starts and awaits."""
        return await asyncio.create_task(part(BLOCK))

    with caplog.at_level(logging.WARNING, logger="nanohubmcp.tool"), serve(server) as url:
        result = call_tool_http(url, "started", timeout=30)
    assert not result.get("isError"), result
    assert result["content"][0]["text"] == str(BLOCK), result
    said = held_warnings(caplog)
    assert len(said) == 1, said
    assert re.match(r"tool 'started' held the event loop for 1\.\d s in one step \(no await\) of part\(\), a task it "
                    r"started, while other calls waited: ", said[0]), said


def test_the_loops_own_task_factory_makes_the_tasks_and_is_put_back() -> None:
    async def scenario() -> tuple[Any, ...]:
        loop = asyncio.get_running_loop()
        made: list[str] = []

        def factory(loop: asyncio.AbstractEventLoop, coro: Any, **options: Any) -> asyncio.Task[Any]:
            made.append(coro.__qualname__.rsplit(".", 1)[-1])
            return asyncio.Task(coro, loop=loop, **options)

        loop.set_task_factory(factory)

        async def tool() -> list[float]:
            unstarted = asyncio.create_task(part(5))  # cancelled before its first step: part never runs
            unstarted.cancel()
            shown = repr(asyncio.create_task(part(0.01)))  # (a task's repr: the coroutine's)
            return [*await asyncio.gather(part(BLOCK), inner(), unstarted, return_exceptions=True), shown]

        async def inner() -> float:
            return await asyncio.create_task(part(BLOCK))

        steps = TimedSteps(tool(), "tool 'x'")
        value = await steps
        outside = await asyncio.create_task(part(0.01))  # no call runs: the task is the loop's own
        return value, steps.held, list(made), loop.get_task_factory() is factory, outside

    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        value, held, made, put_back, outside = asyncio.run(scenario())
        gc.collect()
    assert value[:2] == [BLOCK, BLOCK], value
    assert isinstance(value[2], asyncio.CancelledError), value
    assert "coro=<part() running at" in value[3] or "coro=<part()" in value[3], value[3]  # it reads as part()
    assert 2 * BLOCK <= held < 3 * BLOCK, held  # the blocking tasks' steps, the grandchild's too
    assert made == ["part", "part", "part", "inner", "part", "part"], made  # the loop's factory made every task
    assert put_back
    assert outside == 0.01
    assert not [w for w in warned if "never awaited" in str(w.message)], [str(w.message) for w in warned]
