"""The slow-body guard: every request body being read on a loop is timed by one table and one timer
(not a timer made and cancelled per request); a body not in by its deadline loses its connection,
one that arrived in time is forgotten. The end-to-end case (a stalled POST closed while others are
served) is in test_bad_input_gets_clear_errors.py."""

from __future__ import annotations

import asyncio

import pytest

from nanohubmcp.transports.http_server import Deadlines, loop_deadlines

pytestmark = pytest.mark.anyio


async def test_late_bodies_expire_and_arrived_ones_do_not() -> None:
    loop = asyncio.get_running_loop()
    table = Deadlines(loop)
    expired: list[int] = []
    all_late = asyncio.Event()
    keys = [object() for _ in range(100)]

    def expire(i: int) -> None:
        expired.append(i)
        if len(expired) == 50:
            all_late.set()

    for i, key in enumerate(keys):
        table.add(key, 0.2, lambda i=i: expire(i))
    for key in keys[::2]:  # half of the bodies arrive in time
        table.discard(key)
    await asyncio.wait_for(all_late.wait(), 5)
    assert sorted(expired) == list(range(1, 100, 2))
    # No timer is left (the sweep that ran the last expiry found nothing more to time): nothing can expire
    # twice, and nothing that arrived can expire later.
    assert table._timer is None  # type: ignore[attr-defined]
    assert len(expired) == 50


async def test_one_timer_is_armed_for_any_number_of_bodies_and_none_when_idle() -> None:
    loop = asyncio.get_running_loop()
    table = Deadlines(loop)
    before = len(loop._scheduled)  # type: ignore[attr-defined]
    keys = [object() for _ in range(200)]
    for key in keys:
        table.add(key, 30.0, lambda: None)
    assert len(loop._scheduled) == before + 1  # type: ignore[attr-defined]
    for key in keys:
        table.discard(key)
    # The sweep finds the table empty and does not re-arm: an idle server keeps no timer.
    done = asyncio.Event()
    table.add(object(), 0.04, done.set)
    await asyncio.wait_for(done.wait(), 5)  # set inside the sweep, which has ended by now
    assert table._timer is None  # type: ignore[attr-defined]


async def test_each_loop_has_its_own_table() -> None:
    loop = asyncio.get_running_loop()
    assert loop_deadlines(loop) is loop_deadlines(loop)
    other = asyncio.new_event_loop()
    try:
        assert loop_deadlines(other) is not loop_deadlines(loop)
    finally:
        other.close()
