"""``MCPServer(tool_timeout=...)`` is checked when the server is built, by the rule ``NanohubMCP.tool_timeout``
follows (a fresh-user trial: ``-1`` made every call fail with "every worker was busy", ``"5"`` with an internal
``TypeError`` reported as the tool's own failure; the server had started without a word)."""

from __future__ import annotations

import math

import pytest
from traitlets import TraitError

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.testing import in_memory

REFUSED = [-1, 0, 0.0, math.nan, "5", True]


@pytest.mark.parametrize("value", REFUSED, ids=repr)
def test_a_timeout_that_is_not_a_positive_number_is_refused_at_once(value: object) -> None:
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("timeouts", tool_timeout=value)  # type: ignore[arg-type]
    why = f"tool_timeout must be a positive number of seconds, or None for no limit, not {value!r}"
    if isinstance(value, str):  # a number written as text: how to write it (one rule for real numbers)
        why += "; write it as a number: 5.0"
    assert str(refused.value) == why


@pytest.mark.parametrize("value", [v for v in REFUSED if not isinstance(v, str)], ids=repr)
def test_the_notebook_setting_refuses_the_same_values(value: float) -> None:
    with pytest.raises(TraitError, match=r"^NanohubMCP\.tool_timeout must be a positive number of seconds, or None"):
        NanohubMCP(tool_timeout=value)


@pytest.mark.parametrize("value", [1e-300, 5e-324, 0.0009], ids=repr)
def test_a_timeout_below_a_millisecond_is_refused_in_both_places(value: float) -> None:
    """``tool_timeout=1e-300`` was taken: a limit no call can be started and answered within, which the event
    loop (timing its waits in whole milliseconds) could not even keep; surely a mistake."""
    why = (f"tool_timeout must be at least 0.001 s (a millisecond: the event loop times no shorter wait), or None "
           f"for no limit, not {value!r}")
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("timeouts", tool_timeout=value)
    assert str(refused.value) == why
    with pytest.raises(TraitError) as refused_too:
        NanohubMCP(tool_timeout=value)
    assert str(refused_too.value) == f"NanohubMCP.{why}"


@pytest.mark.parametrize(("value", "limit"), [(None, None), (math.inf, None), (5, 5.0), (0.25, 0.25),
                                              (0.001, 0.001)])
def test_none_and_infinity_mean_no_limit(value: float | None, limit: float | None) -> None:
    assert MCPServer("timeouts", tool_timeout=value).core.tool_timeout == limit
    assert NanohubMCP(tool_timeout=value).tool_timeout == limit


def test_a_timeout_past_a_floats_range_is_no_limit() -> None:
    """As infinity is: ``float(10**400)`` raised OverflowError (review r21 N1)."""
    assert MCPServer("timeouts", tool_timeout=10**400).core.tool_timeout is None


def test_the_notebook_setting_reads_a_timeout_past_a_floats_range_as_no_limit() -> None:
    """``%config NanohubMCP.tool_timeout = 10**400`` ended in traitlets' ``OverflowError`` traceback."""
    assert NanohubMCP(tool_timeout=10**400).tool_timeout is None


@pytest.mark.parametrize("dpi", [math.inf, 10**400, math.nan], ids=["inf", "10**400", "nan"])
def test_a_figure_dpi_a_figure_cannot_be_drawn_at_is_refused_in_both_places(dpi: float) -> None:
    """An infinite dpi was taken, and every figure a tool returned then failed as the tool's error."""
    with pytest.raises(ConfigurationError, match="figure_dpi must be a number of dots per inch from 1 to 2400"):
        MCPServer("dpi", figure_dpi=dpi)
    with pytest.raises(TraitError, match=r"^NanohubMCP\.figure_dpi must be a number of dots per inch from 1 to 2400"):
        NanohubMCP(figure_dpi=dpi)


def test_a_server_with_an_infinite_timeout_answers_its_calls() -> None:
    server = MCPServer("timeouts", tool_timeout=math.inf)

    @server.tool()
    def double(x: float) -> float:
        """Twice x."""
        return 2 * x

    with in_memory(server, session=False, version="2025-03-26") as client:
        result = client.request("tools/call", {"name": "double", "arguments": {"x": 2}})
    assert result.get("isError") is not True
    assert result["content"][0]["text"] == "4.0"
