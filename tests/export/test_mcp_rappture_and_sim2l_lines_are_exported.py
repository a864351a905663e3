"""A notebook's ``%mcp rappture PATH`` (and ``%mcp sim2l PATH``) lines are exported as the same
registrations (``server.add_rappture_tool(...)``, ``server.add_sim2l(...)``), read by the magic's own
parser; the exported script serves the Rappture tool. A line the magic refuses cannot be exported.
Issue 24."""

from __future__ import annotations

import runpy
from pathlib import Path

import nbformat
import pytest

from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import translate

pytest.importorskip("pint")

FERMI = Path(__file__).parents[1] / "rappture" / "tools" / "fermi" / "tool.xml"


def notebook(*sources: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])


def test_the_lines_become_registrations_and_the_script_serves_the_tool(tmp_path: Path) -> None:
    nb = notebook(
        "%load_ext nanohubmcp",
        f"%mcp rappture {FERMI} --name fermi_x --async --timeout 30",
        "%mcp sim2l examples/sim2l/cooling/cooling.ipynb --name cooling",
    )
    text = translate(nb, source="nb.ipynb", output="start_mcp.py", format_code=False).text
    assert f"server.add_rappture_tool({str(FERMI)!r}, name='fermi_x', background=True, timeout=30.0)" in text
    assert "server.add_sim2l('examples/sim2l/cooling/cooling.ipynb', name='cooling')" in text
    only_rappture = notebook(f"%mcp rappture {FERMI} --name fermi_x")
    script = tmp_path / "start_mcp.py"
    script.write_text(translate(only_rappture, source="nb.ipynb", output=str(script), format_code=False).text)
    server = runpy.run_path(str(script), run_name="exported")["server"]
    record = server.core.registry.tools.get("fermi_x")
    assert record is not None
    assert record.input_schema["properties"]["temperature"]["default"] == 300


def test_a_line_the_magic_refuses_cannot_be_exported() -> None:
    with pytest.raises(NanohubMCPError, match="unknown option --fast"):
        translate(notebook(f"%mcp rappture {FERMI} --fast"), source="nb.ipynb", output="s.py", format_code=False)
