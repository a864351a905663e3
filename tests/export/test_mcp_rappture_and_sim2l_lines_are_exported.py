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


def test_the_lines_become_registrations_and_the_script_serves_the_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the script makes its notebook's folder the working directory: undone afterwards
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
    script.write_text(translate(only_rappture, source=str(tmp_path / "nb.ipynb"), output=str(script),
                                format_code=False).text)
    server = runpy.run_path(str(script), run_name="exported")["server"]
    record = server.core.registry.tools.get("fermi_x")
    assert record is not None
    assert record.input_schema["properties"]["temperature"]["default"] == 300


def test_no_plot_is_taken_by_the_magics_line_as_by_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh-user trial: `%mcp rappture PATH --no-plot`, in the docs' table beside the command's
    `--no-plot`, was refused by the magic and by the export ("unknown option --no-plot")."""
    monkeypatch.chdir(tmp_path)  # the notebook's folder, where the script runs its cells
    text = translate(notebook(f"%mcp rappture {FERMI} --name quiet --no-plot"), source="nb.ipynb",
                     output="s.py", format_code=False).text
    assert f"server.add_rappture_tool({str(FERMI)!r}, name='quiet', plot=False)" in text
    script = tmp_path / "start_mcp.py"
    script.write_text(text)
    server = runpy.run_path(str(script), run_name="exported")["server"]
    assert server.core.registry.tools.get("quiet") is not None
    with pytest.raises(NanohubMCPError, match="unknown option --no-plot"):  # a Sim2L draws no curves
        translate(notebook("%mcp sim2l examples/sim2l/cooling/cooling.ipynb --no-plot"), source="nb.ipynb",
                  output="s.py", format_code=False)


def test_a_line_the_magic_refuses_cannot_be_exported() -> None:
    with pytest.raises(NanohubMCPError, match="unknown option --fast"):
        translate(notebook(f"%mcp rappture {FERMI} --fast"), source="nb.ipynb", output="s.py", format_code=False)


def test_the_export_counts_the_tools_of_rappture_and_sim2l_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh-user trial's export of two %%mcp_tool cells, a Rappture tool and a Sim2L said "2 tools"."""
    from nanohubmcp.cli import main

    path = tmp_path / "mixed.ipynb"
    nbformat.write(notebook(
        "%load_ext nanohubmcp",
        f"%mcp rappture {FERMI}",
        "%mcp sim2l examples/sim2l/cooling/cooling.ipynb --name cool",
        "%%mcp_tool\ndef kt(t: float) -> float:\n    return t\n",
        "%%mcp_tool\ndef twice(x: int) -> int:\n    return 2 * x\n",
    ), path)
    assert main(["export", str(path), "-o", str(tmp_path / "mixed_server.py"), "--no-format"]) == 0
    said = capsys.readouterr().err
    assert (f"Wrote {tmp_path / 'mixed_server.py'} (4 tools (2 from %%mcp_tool cells, 1 Rappture tool, "
            "1 Sim2L notebook), 0 resources, 0 prompts)") in said
    only = tmp_path / "only.ipynb"
    nbformat.write(notebook(f"%mcp rappture {FERMI}"), only)
    assert main(["export", str(only), "-o", str(tmp_path / "only.py"), "--no-format"]) == 0
    assert "(1 tool (1 Rappture tool), 0 resources, 0 prompts)" in capsys.readouterr().err
