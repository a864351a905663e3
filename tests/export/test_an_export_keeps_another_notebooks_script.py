"""trial33 W8: ``jupyter nbconvert --to mcp A.ipynb B.ipynb --output-dir out`` wrote both to
``out/start_mcp.py``, B's silently replacing A's (exit 0): the guard that replaces only an earlier export
took another notebook's export for one. So did ``nanohubmcp export A.ipynb; nanohubmcp export B.ipynb`` in
one folder. Now the export of another notebook (its header names it) is kept and the export refused in one
line, unless forced; a notebook's own earlier export is still replaced without asking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from export_roundtrip import export
from test_nbconvert_exports_to_mcp import nbconvert

from nanohubmcp.jupyter.earlier_export import exported_notebook

pytestmark = pytest.mark.slow

Write = Callable[..., Path]


def tool(name: str) -> str:
    return f"%%mcp_tool\ndef {name}(a: int) -> int:\n    '''Return a.'''\n    return a"


def test_nbconvert_of_two_notebooks_into_one_folder_keeps_the_first_script(
    write_notebook: Write, tmp_path: Path,
) -> None:
    write_notebook(tool("first"), name="A.ipynb")
    write_notebook(tool("second"), name="B.ipynb")
    done = nbconvert("--to", "mcp", "A.ipynb", "B.ipynb", "--output-dir", "out", cwd=tmp_path)
    assert done.returncode != 0  # was 0, with out/start_mcp.py serving B's tool only
    assert ("out/start_mcp.py is the export of A.ipynb, not of B.ipynb; pass --output NAME to write another file "
            "(several notebooks: --output '{notebook_name}_mcp'), or --MCPExporter.force=True to replace it"
            ) in done.stderr
    script = (tmp_path / "out" / "start_mcp.py").read_text()
    assert exported_notebook(script) == "A.ipynb"
    assert "def first(" in script

    named = nbconvert("--to", "mcp", "A.ipynb", "B.ipynb", "--output-dir", "out", "--output", "{notebook_name}_mcp",
                      cwd=tmp_path)
    assert named.returncode == 0, named.stderr
    assert exported_notebook((tmp_path / "out" / "A_mcp.py").read_text()) == "A.ipynb"
    assert exported_notebook((tmp_path / "out" / "B_mcp.py").read_text()) == "B.ipynb"

    forced = nbconvert("--to", "mcp", "B.ipynb", "--output-dir", "out", "--MCPExporter.force=True", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert exported_notebook((tmp_path / "out" / "start_mcp.py").read_text()) == "B.ipynb"


def test_nanohubmcp_export_of_a_second_notebook_beside_the_first_is_refused(write_notebook: Write,
                                                                            tmp_path: Path) -> None:
    first = write_notebook(tool("first"), name="A.ipynb")
    second = write_notebook(tool("second"), name="B.ipynb")
    assert export(first).returncode == 0
    again = export(first)  # its own earlier export: replaced without asking
    assert again.returncode == 0, again.stderr
    refused = export(second)
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        f"nanohubmcp export: error: {tmp_path / 'start_mcp.py'} is the export of A.ipynb, not of B.ipynb; give "
        "-o FILE to write B.ipynb's script, or --force to replace it"]
    assert exported_notebook((tmp_path / "start_mcp.py").read_text()) == "A.ipynb"
    assert export(second, "-o", str(tmp_path / "b_server.py")).returncode == 0
    assert export(second, "--force").returncode == 0
    assert exported_notebook((tmp_path / "start_mcp.py").read_text()) == "B.ipynb"
