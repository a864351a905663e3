"""review r22 L2, the policy alone (``processes.restarts``): when the ``--workers`` parent starts a
crashed worker again, over a whole outage's worth of deaths, with times given rather than waited for.
tests/scaleout/test_a_worker_failing_at_its_start_is_restarted_ever_more_slowly.py runs it in a real server."""

from __future__ import annotations

from nanohubmcp.processes.restarts import GIVE_UP_SECONDS, MAX_PAUSE_SECONDS, QUICK_SECONDS, Restarts


def _loop(restarts: Restarts, slot: int, now: float, lived: float = 0.2) -> tuple[list[float | None], float]:
    """Deaths of ``slot`` each ``lived`` seconds after its start, until the policy gives up: the pauses, and then."""
    pauses: list[float | None] = []
    while True:
        started, now = now, now + lived
        pause = restarts.died(slot, started, now).pause
        pauses.append(pause)
        if pause is None:
            return pauses, now
        now += pause


def test_a_worker_that_served_a_while_is_started_again_at_once_however_often() -> None:
    restarts = Restarts()
    for death in range(5000):  # a server's whole life of OOM kills: no budget runs out
        then = restarts.died(0, death * 100.0, death * 100.0 + QUICK_SECONDS)
        assert (then.pause, then.failures, then.words()) == (0.0, 0, "restarted")


def test_deaths_at_start_double_the_pause_up_to_its_bound_and_give_up_after_the_window() -> None:
    pauses, _ = _loop(Restarts(), 0, 1000.0)
    assert pauses[:9] == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, MAX_PAUSE_SECONDS, MAX_PAUSE_SECONDS]
    assert pauses[-1] is None
    # Given up once the failures had lasted the window, not before: the last pause left it short of it.
    waited = sum(pause + 0.2 for pause in pauses[:-1] if pause is not None)
    assert GIVE_UP_SECONDS <= waited + 0.2 < GIVE_UP_SECONDS + MAX_PAUSE_SECONDS + 0.2 * 2


def test_a_worker_that_lived_a_while_ends_its_slots_streak() -> None:
    restarts = Restarts()
    for death in range(4):
        restarts.died(0, death * 1.0, death * 1.0 + 0.1)
    assert restarts.died(0, 10.0, 10.0 + QUICK_SECONDS).pause == 0.0  # it served: the streak ends
    assert restarts.died(0, 100.0, 100.1).pause == 0.0  # one failure at start: at once again
    assert restarts.died(0, 100.1, 100.2).pause == 0.5


def test_each_slot_has_its_own_streak() -> None:
    restarts = Restarts()
    for death in range(5):
        restarts.died(0, death * 1.0, death * 1.0 + 0.1)
    assert restarts.died(1, 5.0, 5.1).pause == 0.0
    assert restarts.died(0, 5.0, 5.1).pause == 8.0


def test_what_the_parent_says_names_the_streak_and_the_pause() -> None:
    restarts = Restarts()
    assert restarts.died(0, 0.0, 0.5).words() == "restarted"
    said = restarts.died(0, 0.5, 1.0).words()
    assert said == "it ended within 10 s of its start 2 times in a row; restarting in 0.5 s"
    now = 1.5
    while (then := restarts.died(0, now, now + 0.1)).pause is not None:
        now += 0.1 + then.pause
    assert then.words() == (f"it ended within 10 s of its start every time for {then.failing_for:.0f} s "
                            f"({then.failures} times in a row); giving up: stopping the server")
    assert then.failing_for >= GIVE_UP_SECONDS
