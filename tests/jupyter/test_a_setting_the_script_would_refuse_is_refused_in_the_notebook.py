"""What ``MCPServer(...)`` or ``server.run(...)`` refuses, ``%config NanohubMCP.<setting>`` refuses too, in one
line, and the setting keeps its value (fresh-user trial 45: ``tool_timeout = True`` ran as a one-second limit, and
its exported ``MCPServer(tool_timeout=True)`` would not start; ``figure_dpi = 10**6`` ran out of memory drawing;
``max_request_bytes = 10**5000`` was stored after Python's own "Exceeds the limit" message, and ``%config
NanohubMCP`` then raised; ``switch_interval = nan`` and ``port = True`` were taken without a word)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from kernels import LiveKernel
from traitlets import TraitError
from traitlets.config import Config

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.jupyter.trait_groups import LIMIT_TRAITS, SERVE_LIMIT_TRAITS
from nanohubmcp.processes.ports import resolve_port
from nanohubmcp.protocol.message_values import shown_value

REFUSED = [
    ("tool_timeout", True, "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, "
                           "not the bool True (default 60.0)"),
    ("tool_timeout", -10**400, "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, "
                               f"not -1{'0' * 57}…"),
    ("tool_timeout", 1e-300, "NanohubMCP.tool_timeout must be at least 0.001 s (a millisecond: the event loop times "
                             "no shorter wait), or None for no limit, not 1e-300"),
    ("figure_dpi", True, "NanohubMCP.figure_dpi must be a number of dots per inch from 1 to 2400, or None for each "
                         "figure's own, not the bool True (default None)"),
    ("figure_dpi", 10**6, "NanohubMCP.figure_dpi must be a number of dots per inch from 1 to 2400, or None for each "
                          "figure's own, not 1000000"),
    ("figure_dpi", 1e308, "NanohubMCP.figure_dpi must be a number of dots per inch from 1 to 2400"),
    ("figure_dpi", 1e-3, "NanohubMCP.figure_dpi must be a number of dots per inch from 1 to 2400"),
    ("switch_interval", math.nan, "NanohubMCP.switch_interval must be a number of seconds from 0.000001 to 1, or None"),
    ("switch_interval", 10**400, "NanohubMCP.switch_interval must be a number of seconds from 0.000001 to 1, or None"),
    ("switch_interval", -1, "NanohubMCP.switch_interval must be a number of seconds from 0.000001 to 1, or None"),
    ("switch_interval", 0, "NanohubMCP.switch_interval must be a number of seconds from 0.000001 to 1, or None"),
    ("switch_interval", True, "NanohubMCP.switch_interval must be a number of seconds from 0.000001 to 1, or None, "
                              "not the bool True"),
    ("port", True, "NanohubMCP.port must be between 0 and 65535 (0 = any free port), not the bool True"),
    ("max_inline_bytes", True, "NanohubMCP.max_inline_bytes must be a number of bytes >= 0, or None to always "
                               "inline, not the bool True (default 262144)"),
    ("max_request_bytes", 10**400, f"NanohubMCP.max_request_bytes = 1{'0' * 58}… is above "
                                   "NanohubMCP.max_buffered_bytes (268435456)"),
    *((limit, 10**5000, f"NanohubMCP.{limit} must be a number of ") for limit in (*LIMIT_TRAITS, *SERVE_LIMIT_TRAITS)),
]


@pytest.mark.parametrize(("setting", "value", "why"), REFUSED, ids=lambda v: shown_value(v, 20))
def test_the_setting_refuses_it_in_one_line(setting: str, value: object, why: str) -> None:
    with pytest.raises(TraitError) as refused:
        NanohubMCP(**{setting: value})
    assert str(refused.value).startswith(why)
    assert "\n" not in str(refused.value)
    if value == 10**5000:
        assert "an int of over 4,300 digits" in str(refused.value)


@pytest.mark.parametrize(("setting", "value", "why"), REFUSED, ids=lambda v: shown_value(v, 20))
def test_a_refused_config_keeps_the_setting_and_the_listing(setting: str, value: object, why: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    settings = NanohubMCP()
    before = getattr(settings, setting)
    config = Config()
    config.NanohubMCP[setting] = value
    settings.update_config(config)
    err = capsys.readouterr().err
    assert err.startswith(f"UsageError: {why}")
    assert err.endswith("; the setting is unchanged\n")
    assert err.count("\n") == 1
    assert getattr(settings, setting) == before
    assert repr(settings.trait_values())  # what %config NanohubMCP lists: it raised after a 10**5000 was kept


@pytest.mark.parametrize(("option", "value"), [("tool_timeout", True), ("tool_timeout", 1e-300), ("figure_dpi", True),
                                                ("figure_dpi", 10**6), ("figure_dpi", 1e308), ("figure_dpi", 1e-3),
                                                ("figure_dpi", 0.5), ("max_inline_bytes", True)], ids=repr)
def test_the_server_refuses_the_same_values(option: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=f"^{option} must be"):
        MCPServer("refused", **{option: value})


@pytest.mark.parametrize("dpi", [1, 72, 300.5, 2000, 2400])
def test_a_dpi_in_the_range_is_taken_in_both_places(dpi: float) -> None:
    assert NanohubMCP(figure_dpi=dpi).figure_dpi == dpi
    MCPServer("dpi", figure_dpi=dpi)


def test_a_port_of_true_is_refused_when_serving() -> None:
    with pytest.raises(ConfigurationError, match=r"^port must be a whole number between 0 and 65535 .*, not True$"):
        resolve_port(True)


def test_a_timeout_past_a_floats_range_is_still_no_limit() -> None:
    assert NanohubMCP(tool_timeout=10**5000).tool_timeout is None


@pytest.mark.slow
def test_the_kernel_reports_each_refusal_in_one_line_and_keeps_its_settings(kernel: LiveKernel) -> None:
    before = kernel.run_ok("%config NanohubMCP").text
    lines: dict[str, Any] = {
        "tool_timeout = True": "NanohubMCP.tool_timeout must be a positive number of seconds",
        "tool_timeout = -10**400": "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no "
                                   "limit, not -1000000000",
        "tool_timeout = 1e-300": "NanohubMCP.tool_timeout must be at least 0.001 s",
        "figure_dpi = True": "NanohubMCP.figure_dpi must be a number of dots per inch from 1 to 2400",
        "figure_dpi = 10**6": "NanohubMCP.figure_dpi must be a number of dots per inch from 1 to 2400",
        "max_request_bytes = 10**5000": "NanohubMCP.max_request_bytes must be a number of bytes >= 1024, not an int "
                                        "of over 4,300 digits",
        "max_buffered_bytes = 10**5000": "NanohubMCP.max_buffered_bytes must be a number of bytes >= 1024, not an "
                                         "int of over 4,300 digits",
        "switch_interval = float('nan')": "NanohubMCP.switch_interval must be a number of seconds",
        "port = True": "NanohubMCP.port must be between 0 and 65535 (0 = any free port), not the bool True",
    }
    for line, why in lines.items():
        cell = kernel.run_ok(f"%config NanohubMCP.{line}")
        assert cell.stderr.startswith(f"UsageError: {why}"), line
        assert cell.stderr.count("\n") == 1, line
        assert "root" not in cell.text, line
    assert kernel.run_ok("%config NanohubMCP").text == before
