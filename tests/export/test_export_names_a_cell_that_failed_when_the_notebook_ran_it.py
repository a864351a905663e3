"""``nanohubmcp export`` notes a kept cell whose saved outputs show it failed when the notebook ran it (trial 73, F6:
a ``%%mcp_tool`` cell run before ``%load_ext nanohubmcp`` — "Cell magic `%%mcp_tool` not found." — was never
served, yet its script served it, with no word). The cell is exported as before; the note names it and its error."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from nanohubmcp.cli import main

EARLY = "%%mcp_tool\ndef early(x: int) -> int:\n    \"\"\"Double x.\"\"\"\n    return 2 * x\n"
LATER = "%%mcp_tool\ndef later(x: int) -> int:\n    \"\"\"Triple x.\"\"\"\n    return 3 * x\n"
NOT_FOUND = "Cell magic `%%mcp_tool` not found."


def test_a_tool_cell_that_failed_in_the_notebook_is_exported_with_a_note_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = nbformat.v4.new_notebook()
    early = nbformat.v4.new_code_cell(EARLY, outputs=[
        nbformat.v4.new_output("error", ename="UsageError", evalue=NOT_FOUND, traceback=["\x1b[31mUsageError\x1b[0m"])])
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# Order"),
        early,
        nbformat.v4.new_code_cell("%load_ext nanohubmcp"),
        nbformat.v4.new_code_cell(LATER, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="MCP tool 'later' is ready\n")]),
    ]
    path = tmp_path / "order.ipynb"
    nbformat.write(notebook, path)

    assert main(["export", str(path), "-o", str(tmp_path / "order_server.py")]) == 0
    err = capsys.readouterr().err
    assert "(2 tools, 0 resources, 0 prompts)" in err  # exported as before
    notes = [line for line in err.splitlines() if "failed when the notebook ran it" in line]
    assert notes == [
        f"  note: cell 2 (%%mcp_tool) failed when the notebook ran it (UsageError: {NOT_FOUND}), but the script "
        "runs it and serves what it defines: fix it and run it again, or tag it mcp-skip to leave it out"
    ]
    assert "def early(" in (tmp_path / "order_server.py").read_text()

    early.metadata["tags"] = ["mcp-skip"]  # as the note says: left out, no note
    nbformat.write(notebook, path)
    assert main(["export", str(path), "-o", str(tmp_path / "order_server.py"), "--force"]) == 0
    err = capsys.readouterr().err
    assert "(1 tool, 0 resources, 0 prompts)" in err
    assert "failed when the notebook ran it" not in err


def test_a_notebook_a_real_kernel_ran_out_of_order_gets_the_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As a kernel saves it (trial 74, F3): IPython writes a cell's ``UsageError`` to stderr, as a stream output, not
    as an ``error`` output, so a note read only from error outputs never fired on a notebook that really ran."""
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(EARLY), nbformat.v4.new_code_cell("%load_ext nanohubmcp"),
                      nbformat.v4.new_code_cell(LATER), nbformat.v4.new_code_cell("%mcp stop")]
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    saved = notebook.cells[0].outputs
    assert any(o.get("output_type") == "stream" and "UsageError" in o.get("text", "") for o in saved), saved
    path = tmp_path / "ran.ipynb"
    nbformat.write(notebook, path)

    assert main(["export", str(path), "-o", str(tmp_path / "ran_server.py")]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "failed when the notebook ran it" in line]
    assert notes == [
        f"  note: cell 1 (%%mcp_tool) failed when the notebook ran it (UsageError: {NOT_FOUND}), but the script "
        "runs it and serves what it defines: fix it and run it again, or tag it mcp-skip to leave it out"
    ]
