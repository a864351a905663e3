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


def armed_sweeps(loop: asyncio.AbstractEventLoop, table: Deadlines) -> int:
    """How many timers of ``table``'s sweep ``loop`` holds."""
    return sum(1 for handle in loop._scheduled  # type: ignore[attr-defined]
               if not handle.cancelled() and getattr(handle._callback, "__self__", None) is table)


async def test_entries_added_by_expiries_leave_one_sweep_armed() -> None:
    """A 408 is answered inside a sweep and re-adds its key (its close after CLOSE_AFTER_408): that add armed a
    second timer, and the sweep's own re-arm a third chain... each 408 one more chain of sweeps walking the table
    for the server's life (review r32 F2: 2 -> 22 sweeps in 2 s after ten 408s). One chain stays armed."""
    loop = asyncio.get_running_loop()
    table = Deadlines(loop)
    answered: list[int] = []
    all_answered = asyncio.Event()

    def time_out(i: int) -> None:  # as _time_out_body: the 408 is written, its connection closes later
        table.add(("body", i), 3600.0, lambda: None)
        answered.append(i)
        if len(answered) == 5:
            all_answered.set()

    for i in range(5):  # five stalled bodies, expiring in five different sweeps (every 0.01 s)
        table.add(("body", i), 0.04 * (i + 1), lambda i=i: time_out(i))
    await asyncio.wait_for(all_answered.wait(), 5)  # set inside the last sweep, which has ended by now
    assert len(table) == 5
    assert armed_sweeps(loop, table) == 1
    for i in range(5):  # the connections closed: the one chain ends at its next sweep
        table.discard(("body", i))
    for _ in range(500):
        if table._timer is None:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.01)
    assert table._timer is None  # type: ignore[attr-defined]
    assert armed_sweeps(loop, table) == 0
