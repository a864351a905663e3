"""``jupyter nbconvert --to mcp`` replaces the file it writes only when that file is an earlier export, as
``nanohubmcp export`` does: a hand-written ``start_mcp.py`` (the name nanoHUB tools give their server) is
refused in one line and kept; ``--MCPExporter.force=True`` replaces it (trial30 T13). The one line was
followed by nbconvert's traceback of the exception, the message again (trial69 T69-2)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_nbconvert_exports_to_mcp import CELLS, nbconvert

from nanohubmcp.jupyter.translate import looks_exported

pytestmark = pytest.mark.slow

Write = Callable[..., Path]
MINE = '# my hand-written server\nfrom nanohubmcp import MCPServer\nserver = MCPServer("mine")\n'


def test_a_hand_written_start_mcp_py_is_refused_and_kept(write_notebook: Write, tmp_path: Path) -> None:
    write_notebook(*CELLS, name="adder.ipynb")
    (tmp_path / "start_mcp.py").write_text(MINE)
    done = nbconvert("--to", "mcp", "adder.ipynb", cwd=tmp_path)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line or "Traceback" in line]
    assert errors == ["[NbConvertApp] ERROR | start_mcp.py exists and is not an earlier export; pass "
                      "--MCPExporter.force=True to replace it (or --output NAME to write another file)"], done.stderr
    assert (tmp_path / "start_mcp.py").read_text() == MINE

    again = nbconvert("--to", "mcp", "adder.ipynb", "--MCPExporter.force=True", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert looks_exported((tmp_path / "start_mcp.py").read_text())


def test_an_earlier_export_is_replaced_and_other_outputs_are_checked(write_notebook: Write, tmp_path: Path) -> None:
    write_notebook(*CELLS, name="adder.ipynb")
    first = nbconvert("--to", "mcp", "adder.ipynb", cwd=tmp_path)
    assert first.returncode == 0, first.stderr

    (tmp_path / "mine.py").write_text(MINE)
    out = tmp_path / "out"
    out.mkdir()
    (out / "start_mcp.py").write_text(MINE)
    # Three conversions at once (each writes, or refuses to write, a file of its own): its own earlier output
    # replaced, and a hand-written file refused by name and in another folder.
    with ThreadPoolExecutor(3) as pool:
        again, named, elsewhere = pool.map(
            lambda args: nbconvert("--to", "mcp", "adder.ipynb", *args, cwd=tmp_path),
            [(), ("--output", "mine"), ("--output-dir", "out")],
        )
    assert again.returncode == 0, again.stderr
    assert looks_exported((tmp_path / "start_mcp.py").read_text())

    assert named.returncode != 0
    assert "mine.py exists and is not an earlier export" in named.stderr
    assert (tmp_path / "mine.py").read_text() == MINE

    assert elsewhere.returncode != 0
    assert "out/start_mcp.py exists and is not an earlier export" in elsewhere.stderr
    assert (out / "start_mcp.py").read_text() == MINE

    (tmp_path / "start_mcp.py").write_text(MINE)  # --stdout writes no file: nothing to keep
    shown = nbconvert("--to", "mcp", "adder.ipynb", "--stdout", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert looks_exported(shown.stdout)
    assert (tmp_path / "start_mcp.py").read_text() == MINE
