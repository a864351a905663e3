"""The kernel's exit stops every notebook server (the ``%%mcp_tool`` session's and each ``server.run()``
server's) within one bound, :data:`~nanohubmcp.jupyter.kernel_exit.EXIT_STOP_SECONDS`, in all: each stop takes
its share of the time left, so the last still answers its calls before a Jupyter kernel manager's SIGTERM (2.5 s
after its shutdown request). The servers' side of it runs in a real kernel in
``test_a_kernel_shutdown_records_the_call_it_cut_short.py``; here, stops that take all the time they are given.
"""

from __future__ import annotations

import time

import pytest

from nanohubmcp.jupyter.kernel_exit import EXIT_STOP_SECONDS, SMALLEST_SHARE, stop_within


def test_each_stop_takes_its_share_and_all_end_within_the_bound() -> None:
    given: list[float] = []

    def slow_stop(within: float) -> None:  # a server whose running calls use all of their moment
        given.append(within)
        time.sleep(within)

    began = time.monotonic()
    stop_within([slow_stop, slow_stop, slow_stop], EXIT_STOP_SECONDS)
    took = time.monotonic() - began
    assert took < EXIT_STOP_SECONDS + 0.2, (took, given)
    assert len(given) == 3, given
    for within in given:
        assert within >= EXIT_STOP_SECONDS / 3 - 0.05, given  # none left with nothing while time was left


def test_a_stop_that_ends_at_once_leaves_its_time_to_the_next() -> None:
    given: list[float] = []
    stop_within([given.append, given.append], EXIT_STOP_SECONDS)
    assert given[0] == pytest.approx(EXIT_STOP_SECONDS / 2, abs=0.05), given
    assert given[1] == pytest.approx(EXIT_STOP_SECONDS, abs=0.05), given


def test_a_stop_given_no_time_left_still_gets_a_positive_bound() -> None:
    given: list[float] = []

    def overrunning(within: float) -> None:
        time.sleep(within + 0.1)

    stop_within([overrunning, given.append], 0.1)
    assert given == [SMALLEST_SHARE], given


def test_a_stop_that_raises_does_not_keep_the_next_from_stopping() -> None:
    given: list[float] = []

    def broken(within: float) -> None:
        raise RuntimeError("port gone")

    with pytest.raises(RuntimeError, match="port gone"):
        stop_within([broken, given.append], EXIT_STOP_SECONDS)
    assert len(given) == 1, given
