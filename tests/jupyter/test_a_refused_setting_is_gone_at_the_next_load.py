"""A ``%config NanohubMCP.x = v`` refused ("the setting is unchanged") leaves nothing behind: IPython's ``%config``
merges the line into the shell's own config (``get_ipython().config``) before ``NanohubMCP`` refuses it, and the
next ``%reload_ext nanohubmcp`` (the docs' way to stop the server) read the refused value from there and refused
to load, one refused value per attempt (found by a fresh-user trial). A load that does refuse names every bad
value at once.
"""

from __future__ import annotations

from typing import Any

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow

SHOW_ENTRIES = "print(sorted(get_ipython().config.NanohubMCP.items()))"


def test_refused_values_leave_the_shells_config_as_it_was_and_reload_loads(kernel: LiveKernel) -> None:
    kernel.run_ok("%config NanohubMCP.tool_timeout = 5")
    for refused in ("figure_dpi = 5000", "tool_timeout = 0", "port = True", "max_jobs = -1"):
        cell = kernel.run_ok(f"%config NanohubMCP.{refused}")
        assert cell.stderr.endswith("; the setting is unchanged\n"), cell.text
    # The entries in force stay (port 0 of the fixture, tool_timeout 5); the refused ones are gone.
    assert kernel.run_ok(SHOW_ENTRIES).stdout == "[('port', 0), ('tool_timeout', 5)]\n"
    reloaded = kernel.run("%reload_ext nanohubmcp")
    assert reloaded.status == "ok", reloaded.text
    assert "not loaded" not in reloaded.text
    assert kernel.run_ok("%config NanohubMCP.tool_timeout").results[-1]["text/plain"] == "5.0"
    assert kernel.run_ok("%config NanohubMCP.figure_dpi").results == []  # None: the default, kept


def test_a_load_that_refuses_names_every_bad_value(start_kernel: Any) -> None:
    live: LiveKernel = start_kernel(MCP_TOKEN="")
    # Before the extension is loaded nothing checks these; the shell's config keeps them.
    live.run_ok("%config NanohubMCP.figure_dpi = 5000\n%config NanohubMCP.port = 0\n"
                "%config NanohubMCP.tool_timeout = 0\n"
                # above the default max_buffered_bytes, but the line after raises that: both taken
                "%config NanohubMCP.max_request_bytes = 2**30\n%config NanohubMCP.max_buffered_bytes = 2**31")
    cell = live.run("%load_ext nanohubmcp")
    assert cell.ename == "UsageError"
    assert cell.evalue == (
        "NanohubMCP.figure_dpi must be a number of dots per inch from 1 to 2400, or None for each figure's own, "
        "not 5000; NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, not 0; "
        "nanohubmcp is not loaded: fix these 2 settings"
    )
    live.run_ok("%config NanohubMCP.figure_dpi = None\n%config NanohubMCP.tool_timeout = 5")
    live.run_ok("%load_ext nanohubmcp")
    assert "Current: 1073741824" in live.run_ok("%config NanohubMCP").text
