"""A value ``NanohubMCP`` refuses is one clear line in the cell (not ``ERROR:root``), and the old value stays."""

from __future__ import annotations

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("setting", "why"),
    [
        ("port = -5", "NanohubMCP.port must be between 0 and 65535 (0 = any free port), not -5"),
        ("tool_timeout = -1", "NanohubMCP.tool_timeout must be a positive number of seconds, or None"),
        ("mode = 'fast'", "The 'mode' trait of a NanohubMCP instance expected any of ['thread', 'kernel']"),
        # traitlets ends its own message with a period: no ".;" before ours.
        ("port = 'abc'", "NanohubMCP.port must be between 0 and 65535 (0 = any free port), not the str 'abc' "
                         "(default 8000); the setting is unchanged"),
    ],
)
def test_a_refused_value_is_a_usage_message_and_changes_nothing(kernel: LiveKernel, setting: str, why: str) -> None:
    before = kernel.run_ok("%config NanohubMCP").text
    cell = kernel.run_ok(f"%config NanohubMCP.{setting}")
    assert cell.stderr.startswith(f"UsageError: {why}")
    assert "root" not in cell.text
    assert kernel.run_ok("%config NanohubMCP").text == before
