"""``poll_interval`` (seconds between ``squeue`` looks) is checked with the other Slurm options when the
server or the tool is made. Found by a fresh-user trial (trial34 X8): ``"x"``, 0, -1, NaN and infinity
were taken; each job then failed with "could not convert string to float: 'x'" while its batch job was
left in the queue."""

from __future__ import annotations

import math

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError, RegistrationError


@pytest.mark.parametrize("every", ["x", "1", 0, -1, math.nan, math.inf, True, 301])
def test_a_poll_interval_that_is_no_usable_number_of_seconds_is_refused(every: object) -> None:
    with pytest.raises(ConfigurationError, match="slurm option poll_interval must be a number of seconds"):
        MCPServer("x", job_executor="slurm", executor_options={"slurm": {"poll_interval": every}})
    server = MCPServer("y", job_executor="slurm")
    with pytest.raises(RegistrationError, match="poll_interval must be a number of seconds"):
        server.async_tool(name="f", executor_options={"poll_interval": every})(lambda: 1)


@pytest.mark.parametrize("every", [0.2, 1, 300])
def test_a_number_of_seconds_is_taken(every: float) -> None:
    MCPServer("z", job_executor="slurm", executor_options={"slurm": {"poll_interval": every}})
