"""``MCPServer.stop(within=)`` takes a positive number of seconds; anything else is refused before anything stops
(it was added for a kernel's exit, and ``within="2"`` failed inside the stop with a TypeError, ``within=0`` or
``nan`` stopped with no moment for the running calls). ``None``, ``inf`` and a number past any wait are the stop's
own steps."""

from __future__ import annotations

import math

import pytest

from nanohubmcp import MCPServer


def test_within_refuses_what_is_no_number_of_seconds_and_the_server_goes_on() -> None:
    server = MCPServer("stopping")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    server.start(port=0)
    try:
        for wrong, shown in ((0, "0"), (-1, "-1"), ("2", "'2'; write it as a number: 2.0"), (math.nan, "nan"),
                             (True, "True")):
            with pytest.raises(ValueError, match="within must be a positive number of seconds") as refused:
                server.stop(within=wrong)
            assert str(refused.value).endswith(f"not {shown}")
            assert server.call("add", {"a": 1, "b": 2}).text == "3"  # still serving
    finally:
        server.stop(within=math.inf)
    server.stop(within=1.5)  # (stopped already: nothing to do)
