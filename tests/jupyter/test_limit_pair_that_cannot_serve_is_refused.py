"""``max_buffered_bytes`` must be at least ``max_request_bytes`` (``run()`` refuses to start otherwise). A fresh-user
trial: ``%config`` took a pair breaking that, kept it, and stopped the notebook's running server. Now the line that
would break the pair is refused in one line naming both settings, their values and the order to change them in; the
setting keeps its value and the server keeps serving; a profile setting both (checked once both are set) is taken."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from kernels import LiveKernel
from traitlets import TraitError

from nanohubmcp.jupyter.config import NanohubMCP

TOOL = "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b"


def current(kernel: LiveKernel, setting: str) -> int:
    shown = re.search(rf"NanohubMCP\.{setting}=<Limit>\n(?:    .*\n)*?    Current: (\d+)",
                      kernel.run_ok("%config NanohubMCP").text)
    assert shown is not None
    return int(shown.group(1))


@pytest.mark.parametrize(
    ("setting", "value", "why"),
    [
        ("max_buffered_bytes", 50000, "NanohubMCP.max_buffered_bytes = 50000 is below NanohubMCP.max_request_bytes "
         "(100000); max_buffered_bytes must be at least max_request_bytes: lower max_request_bytes first, then "
         "max_buffered_bytes"),
        ("max_request_bytes", 300000000, "NanohubMCP.max_request_bytes = 300000000 is above "
         "NanohubMCP.max_buffered_bytes (268435456); max_buffered_bytes must be at least max_request_bytes: raise "
         "max_buffered_bytes first, then max_request_bytes"),
    ],
)
def test_the_setting_is_refused_and_keeps_its_value(setting: str, value: int, why: str) -> None:
    config = NanohubMCP(max_request_bytes=100000)
    before = getattr(config, setting)
    with pytest.raises(TraitError) as refused:
        setattr(config, setting, value)
    assert str(refused.value) == why
    assert getattr(config, setting) == before


def test_both_set_together_in_either_order_are_taken() -> None:
    for kwargs in ({"max_request_bytes": 300_000_000, "max_buffered_bytes": 400_000_000},
                   {"max_buffered_bytes": 400_000_000, "max_request_bytes": 300_000_000}):
        config = NanohubMCP(**kwargs)
        assert (config.max_request_bytes, config.max_buffered_bytes) == (300_000_000, 400_000_000)
    with pytest.raises(TraitError, match="max_buffered_bytes must be at least max_request_bytes"):
        NanohubMCP(max_request_bytes=300_000_000, max_buffered_bytes=200_000_000)


@pytest.mark.slow
def test_a_config_line_breaking_the_pair_leaves_the_running_server_serving(kernel: LiveKernel) -> None:
    kernel.run_ok(TOOL)
    assert "serving on" in kernel.run_ok("%mcp status").text
    kernel.run_ok("%config NanohubMCP.max_request_bytes = 100000")
    cell = kernel.run_ok("%config NanohubMCP.max_buffered_bytes = 50000")
    assert cell.stderr == ("UsageError: NanohubMCP.max_buffered_bytes = 50000 is below NanohubMCP.max_request_bytes "
                           "(100000); max_buffered_bytes must be at least max_request_bytes: lower max_request_bytes "
                           "first, then max_buffered_bytes; the setting is unchanged\n")
    assert "could not restart" not in cell.text
    assert "serving on" in kernel.run_ok("%mcp status").text
    assert (current(kernel, "max_request_bytes"), current(kernel, "max_buffered_bytes")) == (100000, 268435456)
    # the order the message names is taken
    kernel.run_ok("%config NanohubMCP.max_buffered_bytes = 400000000")
    cell = kernel.run_ok("%config NanohubMCP.max_request_bytes = 300000000")
    assert "UsageError" not in cell.text
    assert (current(kernel, "max_request_bytes"), current(kernel, "max_buffered_bytes")) == (300000000, 400000000)
    assert "serving on" in kernel.run_ok("%mcp status").text


@pytest.mark.slow
def test_a_profile_setting_both_is_taken(start_kernel: Any, ipython_dir: Path) -> None:
    profile = ipython_dir / "profile_default"
    profile.mkdir()
    (profile / "ipython_kernel_config.py").write_text(
        "c.NanohubMCP.max_request_bytes = 300000000\nc.NanohubMCP.max_buffered_bytes = 400000000\n")
    kernel = start_kernel()
    kernel.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    kernel.run_ok(TOOL)
    assert "serving on" in kernel.run_ok("%mcp status").text
    assert (current(kernel, "max_request_bytes"), current(kernel, "max_buffered_bytes")) == (300000000, 400000000)
