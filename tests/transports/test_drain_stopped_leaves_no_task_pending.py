"""review r30 N5. ``drain_stopped`` runs a stopped loop (a Jupyter kernel's at its exit) until a server's drain
ended, ``bound`` seconds at most. When the bound passed first it cancelled the drain's task but never ran the loop
again, so the task (and ``wait_for``'s inner one) stayed pending: at the interpreter's exit asyncio printed "Task
was destroyed but it is pending!" into the kernel's log. Now the loop is run again, briefly, for the cancellation
to be taken; and a drain that timed out is logged, not raised to the exit hook. A real event loop stopped over and
over, as a queued stop of ipykernel's stops it."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from nanohubmcp.processes.drain import drain_stopped

BOUND = 0.3


def test_a_drain_past_its_bound_leaves_no_task_pending(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.new_event_loop()
    cancels: list[float] = []

    async def stops_its_loop() -> None:
        """Stops the loop every 10 ms (each run of it ends early); cancelled, it takes 50 ms more to end, as a
        drain finishing what it began does."""
        while True:
            asyncio.get_running_loop().stop()
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                cancels.append(time.monotonic())
                for _ in range(5):
                    asyncio.get_running_loop().stop()
                    time.sleep(0.01)
                    await asyncio.sleep(0)
                raise

    try:
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="nanohubmcp"):
            drain_stopped(loop, stops_its_loop, BOUND)
        assert time.monotonic() - started < BOUND + 2
        assert asyncio.all_tasks(loop) == set()
        assert cancels
        assert "did not drain within 0.3 s" in caplog.text
    finally:
        loop.close()


def test_a_drain_that_times_out_on_a_running_loop_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.new_event_loop()

    async def slow() -> None:
        await asyncio.sleep(30)

    try:
        with caplog.at_level(logging.WARNING, logger="nanohubmcp"):
            drain_stopped(loop, slow, BOUND)
        assert asyncio.all_tasks(loop) == set()
        assert "did not drain within 0.3 s" in caplog.text
    finally:
        loop.close()
