"""A notebook's server is named after the notebook's file when Jupyter Server tells the kernel (``JPY_SESSION_NAME``),
as ``nanohubmcp export`` names the script's server: the two are one server, with one state directory (stored Sim2L
runs, jobs, history). A kernel not told its notebook (started by jupyter_client, nbclient, papermill, a Jupyter
server without sessions) names its server ``notebook``, while the export of ``analysis.ipynb`` names its script's
``analysis``: the status says so, and how to name both alike (``%config NanohubMCP.name``, which the export writes).

Found by a fresh-user trial (trial64 F3): the exported script re-ran a Sim2L run the notebook's server had stored
(13 s instead of a cache hit), its state directory ``.../analysis`` and the notebook's ``.../notebook``, and nothing
said so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from kernels import LiveKernel

from nanohubmcp.jupyter.translate import translate

pytestmark = pytest.mark.slow

TOOL = '''%%mcp_tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b
'''
NOTE = "Note: the server is named 'notebook': this kernel was not told its notebook's file name"


def exported_name(tmp_path: Path, *cells: str) -> str:
    notebook = nbformat.v4.new_notebook()
    notebook.cells.extend(nbformat.v4.new_code_cell(cell) for cell in cells)
    return translate(notebook, source=str(tmp_path / "analysis.ipynb"), format_code=False).server_name


def test_a_kernel_not_told_its_notebook_says_the_export_is_another_server(kernel: LiveKernel, tmp_path: Path) -> None:
    shown = kernel.run_ok(TOOL)
    assert "MCP server 'notebook'" in shown.text
    assert NOTE in shown.text, shown.text
    assert "%config NanohubMCP.name = 'NAME' names both alike" in shown.text
    html = next(bundle["text/html"] for bundle in shown.results if "text/html" in bundle)
    assert "this kernel was not told its notebook&#x27;s file name" in html
    assert exported_name(tmp_path, TOOL) == "analysis"  # another server, hence the note

    setting = "%config NanohubMCP.name = 'analysis'"
    kernel.run_ok(setting)
    shown = kernel.run_ok("%mcp status")
    assert "MCP server 'analysis'" in shown.text
    assert NOTE not in shown.text
    assert exported_name(tmp_path, setting, TOOL) == "analysis"  # one server: one state directory


def test_a_kernel_told_its_notebook_is_named_as_its_export_and_says_nothing(start_kernel: Any, tmp_path: Path) -> None:
    live: LiveKernel = start_kernel(JPY_SESSION_NAME=str(tmp_path / "analysis.ipynb"))
    live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    shown = live.run_ok(TOOL)
    assert "MCP server 'analysis'" in shown.text
    assert NOTE not in shown.text
    assert exported_name(tmp_path, TOOL) == "analysis"
