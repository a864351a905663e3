"""A notebook's ``%config NanohubMCP.<limit>`` lines (``max_result_bytes``, ``max_stuck_calls``,
``max_kept_bytes``, ...) reach the exported script's ``MCPServer(...)`` as the kernel checked them, so the
script's server has the notebook's limits; one set to its default writes nothing (``MCPServer`` has that
default already), and a value the setting refuses fails the export naming the cell and the setting."""

from __future__ import annotations

import nbformat
import pytest
from export_roundtrip import script_server

from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import Script, translate


def exported(*sources: str) -> Script:
    made = nbformat.v4.new_notebook()
    made.cells.extend(nbformat.v4.new_code_cell(source) for source in sources)
    return translate(made, source="work/demo.ipynb", format_code=False)


def test_the_limits_reach_the_scripts_server() -> None:
    script = exported(
        "%config NanohubMCP.max_result_bytes = 1000\n"
        "%config NanohubMCP.max_stuck_calls = 0\n"
        "%config NanohubMCP.max_kept_bytes = 1e9\n"
        "%config NanohubMCP.max_jobs = 20\n"
        "%config NanohubMCP.max_jobs = 10000\n"
    )
    assert ('server = MCPServer("demo", max_result_bytes=1000, max_stuck_calls=0, max_kept_bytes=1000000000)'
            in script.text)
    assert ("# %config NanohubMCP.max_result_bytes = 1000: applied in MCPServer(...) at the top of the file"
            in script.text)
    assert "# %config NanohubMCP.max_jobs = 10000: the default: nothing written" in script.text
    core = script_server(script.text).core
    assert core.result_options.max_result_bytes == 1000
    assert core.executor.max_stuck == 0
    assert core.result_store.max_bytes == 1_000_000_000


def test_no_limit_is_carried_as_none() -> None:
    script = exported("%config NanohubMCP.max_result_bytes = None")
    assert 'server = MCPServer("demo", max_result_bytes=None)' in script.text
    assert script_server(script.text).core.result_options.max_result_bytes is None


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("%config NanohubMCP.max_kept_bytes = 0",
         "NanohubMCP.max_kept_bytes must be a number of bytes >= 1, not 0 (default 536870912)"),
        ("%config NanohubMCP.max_stuck_calls = '64'",
         "The 'max_stuck_calls' trait of a NanohubMCP instance expected a number of calls >= 0, not the str '64'"),
    ],
)
def test_a_refused_limit_fails_the_export_naming_it(line: str, why: str) -> None:
    with pytest.raises(NanohubMCPError) as refused:
        exported(line)
    assert f"work/demo.ipynb, cell 1 ({line}): {why}" in str(refused.value)
