"""The exit grace (how long a stopped process takes at most to exit) is a setting, ``run(exit_grace=)`` and
``nanohubmcp run --exit-grace``, checked by one rule before anything is served or imported: a number of seconds from
2 to 86400, as ``protocol.seconds`` reads numbers (never a bool or a string). It was a fixed 10 s
(``EXIT_GRACE_SECONDS``), which the tests of the bound waited out: they now serve with 2 s. Those tests
(tests/server/test_a_blocked_event_loop_still_exits_within_the_bound.py, their stdio and ``--workers`` twins)
show the value served with reaches the watchdog, the wait for calls and the parent's kill."""

from __future__ import annotations

import argparse
import math
from fractions import Fraction
from pathlib import Path

import pytest
from support import refused_run

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.processes.exit_grace import checked_exit_grace, exit_grace_option, kill_wait


@pytest.mark.parametrize("value", [2, 2.0, 10, 30.5, 86400, Fraction(5, 2)])
def test_a_number_of_seconds_from_2_to_a_day_is_taken(value: object) -> None:
    assert checked_exit_grace(value) == float(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [1.999, 0, -5, 86400.5, math.nan, math.inf, 10**5000, -(10**5000), True, "5",
                                   None], ids=lambda value: type(value).__name__)
def test_anything_else_is_refused_in_one_short_line_naming_the_option(value: object) -> None:
    with pytest.raises(ConfigurationError) as refused:
        checked_exit_grace(value)
    text = str(refused.value)
    assert text.startswith("exit_grace must be a number of seconds from 2 to 86400"), text
    assert "default 10" in text, text
    assert len(text) < 300, text
    assert "\n" not in text


def test_a_string_that_reads_as_a_number_is_told_how_to_write_it() -> None:
    with pytest.raises(ConfigurationError, match=r"; write it as a number: 5\.0$"):
        checked_exit_grace("5")


def test_the_parents_kill_comes_5_s_past_the_grace() -> None:
    assert kill_wait(10.0) == 15.0  # the documented default
    assert kill_wait(2.0) == 7.0


def test_run_refuses_a_grace_out_of_range_before_serving() -> None:
    server = MCPServer("grace")
    with pytest.raises(ConfigurationError, match="exit_grace must be a number of seconds from 2 to 86400"):
        server.run(port=0, exit_grace=1)
    assert not server.running


def test_the_option_takes_a_number_and_refuses_text_or_a_value_out_of_range() -> None:
    assert exit_grace_option("2") == 2.0
    assert exit_grace_option("2.5e1") == 25.0
    for text in ("soon", "1", "nan", "inf"):
        with pytest.raises(argparse.ArgumentTypeError):
            exit_grace_option(text)


def test_the_command_refuses_it_as_a_usage_error_before_importing_the_app(tmp_path: Path) -> None:
    said = refused_run(tmp_path, "--exit-grace", "1")
    assert "argument --exit-grace: must be a number of seconds from 2 to 86400" in said, said
    assert said.rstrip().endswith("default 10), not '1'"), said  # as typed, the option named once (review r26 NIT-7)
    said = refused_run(tmp_path, "--exit-grace", "1e400")
    assert said.rstrip().endswith("default 10), not '1e400'"), said  # not the float it reads as (inf)
    said = refused_run(tmp_path, "--exit-grace", "soon")
    assert "argument --exit-grace: must be a number of seconds from 2 to 86400" in said, said
    assert said.rstrip().endswith("default 10), not 'soon'"), said  # (in the shape of every option's refusal)
