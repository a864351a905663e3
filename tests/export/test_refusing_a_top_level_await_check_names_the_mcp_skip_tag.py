"""``nanohubmcp export``'s refusal of a plain cell with a top-level ``await`` names the ``mcp-skip`` tag (trial 73,
F9: notebook.md has headless users check an async tool with ``r = await current().server.call_async(...)`` and tag
that cell ``mcp-skip``, but the refusal offered only rewrites that would put the check into the script). A
``%%mcp_tool`` cell's refusal does not: tagging it would leave its tool out."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from nanohubmcp.cli import main

TOOL = "%%mcp_tool\nasync def slow(x: int) -> int:\n    \"\"\"Echo x.\"\"\"\n    return x\n"
CHECK = ("from nanohubmcp.jupyter.extension import current\n\n"
         "r = await current().server.call_async(\"slow\", {\"x\": 1})\nassert not r[\"isError\"]\n")


def export(tmp_path: Path, *cells: nbformat.NotebookNode) -> int:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("%load_ext nanohubmcp"), *cells]
    nbformat.write(notebook, tmp_path / "proc.ipynb")
    return main(["export", str(tmp_path / "proc.ipynb"), "-o", str(tmp_path / "proc_server.py"), "--force"])


def test_the_refusal_of_a_check_cell_says_to_tag_it_mcp_skip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check = nbformat.v4.new_code_cell(CHECK)
    assert export(tmp_path, nbformat.v4.new_code_cell(TOOL), check) == 1
    err = capsys.readouterr().err
    assert err.startswith("nanohubmcp export: error: ")
    assert (f"{tmp_path / 'proc.ipynb'}, cell 3 (from nanohubmcp.jupyter.extension import current): top-level "
            "await on line 3 cannot run in a script; move it into an async def (a tool may be async) or call "
            "asyncio.run(...); or, a check of the notebook's tools, tag the cell mcp-skip (the export leaves it "
            "out)\n") in err

    check.metadata["tags"] = ["mcp-skip"]  # what the message says: the export goes through
    assert export(tmp_path, nbformat.v4.new_code_cell(TOOL), check) == 0
    assert "(1 tool, 0 resources, 0 prompts)" in capsys.readouterr().err

    tool_cell = nbformat.v4.new_code_cell("%%mcp_tool\nawait go()\ndef f() -> int:\n    return 1\n")
    assert export(tmp_path, tool_cell) == 1
    err = capsys.readouterr().err
    assert "cell 2 (%%mcp_tool): top-level await on line 2" in err
    assert "mcp-skip" not in err  # tagging a tool's cell would leave the tool out
