"""``poll_interval`` (seconds between ``squeue`` looks) is checked with the other Slurm options when the
server or the tool is made. Found by a fresh-user trial (trial34 X8): ``"x"``, 0, -1, NaN and infinity
were taken; each job then failed with "could not convert string to float: 'x'" while its batch job was
left in the queue. Then (trial35 Y8) any tiny positive value was taken (``1e-9``: ``squeue`` as fast as the
server can fork, against the site's controller); the least is 1 s. The ``submit`` executor's ``poll_interval``
was not checked at all (``1e-9`` looked at the run's output in a busy loop on the server's event loop, ``"x"``
failed every job); its least is 0.1 s."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError, RegistrationError


# A number past a float's range (10**400, Fraction(10**400)) too: float() raised OverflowError (review r21 N1).
@pytest.mark.parametrize("every", ["x", "1", 0, -1, math.nan, math.inf, True, 301, 1e-9, 0.001, 0.999,
                                   np.float64("nan"), np.int64(0), np.bool_(True), 10**400, Fraction(10**400),
                                   -Fraction(10**400)])
def test_a_poll_interval_that_is_no_usable_number_of_seconds_is_refused(every: object) -> None:
    with pytest.raises(ConfigurationError, match="slurm option poll_interval must be a number of seconds"):
        MCPServer("x", job_executor="slurm", executor_options={"slurm": {"poll_interval": every}})
    server = MCPServer("y", job_executor="slurm")
    with pytest.raises(RegistrationError, match="poll_interval must be a number of seconds"):
        server.async_tool(name="f", executor_options={"poll_interval": every})(lambda: 1)


# Any real number, as the other durations (check_options): numpy's int64 was refused (review r20 L3).
@pytest.mark.parametrize("every", [1, 1.5, 300, np.int64(5), np.float32(2.5), Fraction(3, 2)])
def test_a_number_of_seconds_is_taken(every: float) -> None:
    MCPServer("z", job_executor="slurm", executor_options={"slurm": {"poll_interval": every}})


def test_the_refusal_says_the_range_in_one_line() -> None:
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("x", job_executor="slurm", executor_options={"slurm": {"poll_interval": 1e-9}})
    assert str(refused.value) == ("slurm option poll_interval must be a number of seconds from 1 to 300 (squeue is "
                                  "asked that often), not 1e-09")


@pytest.mark.parametrize("every", ["x", 0, -1, math.nan, math.inf, True, 301, 1e-9, 0.05, Fraction(10**400)])
def test_a_submit_poll_interval_that_is_no_usable_number_of_seconds_is_refused(every: object) -> None:
    with pytest.raises(ConfigurationError, match=r"^submit option poll_interval must be a number of seconds from "
                                                 r"0\.1 to 300 \(the run's output is read that often\), not "):
        MCPServer("x", job_executor="submit", executor_options={"submit": {"poll_interval": every}})
    server = MCPServer("y", job_executor="submit")
    with pytest.raises(RegistrationError, match="poll_interval must be a number of seconds"):
        server.async_tool(name="f", executor_options={"poll_interval": every})(lambda: 1)


@pytest.mark.parametrize("every", [0.1, 0.25, 300, np.int64(5), np.float64(0.5)])
def test_a_submit_number_of_seconds_is_taken(every: float) -> None:
    MCPServer("z", job_executor="submit", executor_options={"submit": {"poll_interval": every}})
