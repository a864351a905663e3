"""``%config NanohubMCP.tool_timeout = 10**400`` is no limit in the kernel (as in ``MCPServer``): the export writes
``tool_timeout=None``, as it does for ``1e400`` (it refused the first, "too large to evaluate safely", and wrote
``tool_timeout=inf``, a NameError, for the second). ``-10**400`` and a bool are refused as the kernel refuses them
(fresh-user trial 45); ``float('inf')`` and ``math.inf`` are no limit as the kernel takes them (trial 50 F6), and
``float('nan')`` is refused in the kernel's words (trial51 F10 i)."""

from __future__ import annotations

import nbformat
import pytest
from export_roundtrip import script_server

from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import Script, translate


def exported(line: str) -> Script:
    made = nbformat.v4.new_notebook()
    made.cells.append(nbformat.v4.new_code_cell(f"%load_ext nanohubmcp\n%config NanohubMCP.{line}"))
    return translate(made, source="work/demo.ipynb", format_code=False)


@pytest.mark.parametrize("value", ["10**400", "+10**5000", "-(-10)**401", "1e400", "None", "float('inf')", "math.inf"])
def test_a_timeout_past_a_floats_range_is_exported_as_no_limit(value: str) -> None:
    script = exported(f"tool_timeout = {value}")
    assert 'server = MCPServer("demo", tool_timeout=None)' in script.text
    assert script_server(script.text).core.tool_timeout is None


@pytest.mark.parametrize(("value", "why"), [
    ("-10**400", "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, not a number "
                 "below -2**1024"),
    ("(-10)**401", "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, not a number "
                   "below -2**1024"),
    ("True", "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, not the bool True"),
    ("1e-300", "NanohubMCP.tool_timeout must be at least 0.001 s (a millisecond: the event loop times no shorter "
               "wait), or None for no limit, not 1e-300"),
    ("float('nan')", "NanohubMCP.tool_timeout must be a positive number of seconds, or None for no limit, not nan"),
])
def test_a_timeout_the_kernel_refuses_is_refused_by_the_export(value: str, why: str) -> None:
    with pytest.raises(NanohubMCPError) as refused:
        exported(f"tool_timeout = {value}")
    assert why in str(refused.value)


@pytest.mark.parametrize("value", ["True", "10**6", "1e-3"])
def test_a_figure_dpi_the_server_refuses_is_refused_by_the_export(value: str) -> None:
    with pytest.raises(NanohubMCPError, match="figure_dpi must be a number of dots per inch from 1 to 2400"):
        exported(f"figure_dpi = {value}")


def test_a_figure_dpi_in_the_range_reaches_the_scripts_server() -> None:
    script = exported("figure_dpi = 300")
    assert script_server(script.text).core.result_options.figure_dpi == 300
